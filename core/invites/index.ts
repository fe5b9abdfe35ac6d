export {
  defaultInviteSeconds,
  inviteCodeSchema,
  inviteCreateSchema,
  inviteRedeemSchema,
  joinLink,
  maxInviteSeconds,
  newInviteCode,
  parseJoinLink,
  personNameSchema,
} from "./people";
// ./qr.ts (the link's QR code) is imported by its path by the CLI and the PWA's on-demand qr.js
// only: left out here so the worker, which never draws one, never bundles the QR encoder.
