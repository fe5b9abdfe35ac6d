import { z } from "zod";
import { scopes } from "../auth";
import { lazySchema } from "../lazy-schema";
import { noticeLineMax } from "./notice";

/** The queue that carries push jobs from the agents to the worker that encrypts and sends them. */
export const pushQueue = "pantheon-push";

/**
 * One notice to send, as an agent puts it on the push queue: who gets it (the people of `scope`, or
 * the one `person`, never one muting `agent`) and what it says, already redacted. `looking` lists the
 * tokens with a socket live on the agent when it was queued: their people see the chat, so a notice
 * marked `unlessLooking` skips them. The encryption and the sending happen in the queue's consumer,
 * so an agent's turn never pays for them.
 */
export const pushJobSchema = lazySchema(() =>
  z.object({
    kind: z.literal("push"),
    project: z.string().min(1),
    agent: z.string().min(1),
    scope: z.enum(scopes),
    person: z.string().optional(),
    unlessLooking: z.boolean().optional(),
    looking: z.array(z.string()).max(1000).optional(),
    notice: z.object({
      title: z.string().max(300),
      body: z.string().max(noticeLineMax),
      url: z.string().max(2048),
      tag: z.string().max(300),
      clear: z.literal(true).optional(),
    }),
  }),
);

export type PushJob = z.infer<typeof pushJobSchema>;
