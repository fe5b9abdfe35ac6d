/**
 * The offline outbox: messages typed while the network is down, kept in IndexedDB so they
 * survive a closed tab. Both the page (on `online`) and the service worker (Background Sync)
 * drain it; a claim taken inside one IndexedDB transaction makes sure only one of them sends.
 */
export interface QueuedMessage {
  /** Also the message's client id: every send of it names it, so the server takes it once. */
  id: string;
  agent: string;
  project: string;
  session?: string;
  content: string;
  /** Pictures sent with it: the blobs themselves (IndexedDB keeps Blobs), uploaded when it goes out. */
  pictures?: QueuedPicture[];
  createdAt: number;
  /** Set while a sender owns the message; stale claims (a closed tab) expire. */
  claimedAt?: number;
  /** The bearer token travels with the message so the service worker can send it alone. */
  token: string;
}

export interface QueuedPicture {
  blob: Blob;
  type: string;
  name: string;
  width?: number;
  height?: number;
  /** Set once uploaded, so a send that fails after the upload does not store the picture twice. */
  id?: string;
}

export interface Outbox {
  /** `id` is the message's client id when it had one already (a send whose answer was lost). */
  add(message: Omit<QueuedMessage, "id" | "createdAt"> & { id?: string }): Promise<QueuedMessage>;
  list(): Promise<QueuedMessage[]>;
  /**
   * Sends every unclaimed message in order; returns the ones that went out. A send that fails is
   * put back as `send` left it: ids it wrote on `pictures` (uploaded already) are kept for the retry.
   */
  drain(send: (message: QueuedMessage) => Promise<void>): Promise<QueuedMessage[]>;
  remove(id: string): Promise<void>;
}

const DB = "pantheon";
const STORE = "outbox";
const CLAIM_TTL_MS = 60_000;

/**
 * @example
 * const outbox = makeOutbox({ indexedDB, now: Date.now });
 * await outbox.add({ agent: "helper", project: "default", content: "hi", token });
 * await outbox.drain((m) => api.sendMessage(m.agent, { content: m.content, session: m.session }).then(() => {}));
 */
export function makeOutbox(deps: { indexedDB: IDBFactory; now: () => number; randomId?: () => string }): Outbox {
  const randomId = deps.randomId ?? (() => crypto.randomUUID());
  let opened: Promise<IDBDatabase> | null = null;

  function db(): Promise<IDBDatabase> {
    opened ??= new Promise((resolve, reject) => {
      const req = deps.indexedDB.open(DB, 1);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: "id" });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    return opened;
  }

  async function tx<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T> | void): Promise<T> {
    const d = await db();
    return new Promise<T>((resolve, reject) => {
      const t = d.transaction(STORE, mode);
      const req = run(t.objectStore(STORE));
      t.oncomplete = () => resolve(req ? req.result : (undefined as T));
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }

  async function claim(id: string): Promise<QueuedMessage | null> {
    const d = await db();
    return new Promise((resolve, reject) => {
      const t = d.transaction(STORE, "readwrite");
      const store = t.objectStore(STORE);
      let claimed: QueuedMessage | null = null;
      const get = store.get(id);
      get.onsuccess = () => {
        const m = get.result as QueuedMessage | undefined;
        if (!m || (m.claimedAt && deps.now() - m.claimedAt < CLAIM_TTL_MS)) return;
        claimed = { ...m, claimedAt: deps.now() };
        store.put(claimed);
      };
      t.oncomplete = () => resolve(claimed);
      t.onerror = () => reject(t.error);
    });
  }

  const list = async () =>
    ((await tx<QueuedMessage[]>("readonly", (s) => s.getAll())) ?? []).sort((a, b) => a.createdAt - b.createdAt);
  const remove = async (id: string) => void (await tx("readwrite", (s) => void s.delete(id)));

  return {
    async add(input) {
      const message: QueuedMessage = { ...input, id: input.id ?? randomId(), createdAt: deps.now() };
      await tx("readwrite", (s) => void s.put(message));
      return message;
    },
    list,
    remove,
    async drain(send) {
      const sent: QueuedMessage[] = [];
      for (const queued of await list()) {
        const mine = await claim(queued.id);
        if (!mine) continue;
        try {
          await send(mine);
        } catch (error) {
          await tx("readwrite", (s) => void s.put({ ...mine, claimedAt: undefined }));
          throw error;
        }
        await remove(mine.id);
        sent.push(mine);
      }
      return sent;
    },
  };
}
