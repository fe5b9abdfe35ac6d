import type { Picture } from "./pictures";

/**
 * Pictures attached to a message not sent yet, kept per agent in IndexedDB (Blobs and all), as
 * the typed text is kept in localStorage: a phone that drops the tab while its camera app is open,
 * or a reload, does not lose them. A browser without IndexedDB keeps them for the page's life only.
 */
export interface DraftPictures {
  load(agent: string): Promise<Picture[]>;
  save(agent: string, pictures: Picture[]): Promise<void>;
}

const DB = "pantheon-drafts";
const STORE = "pictures";

/**
 * @example
 * const drafts = makeDraftPictures(indexedDB);
 * await drafts.save("helper", pictures);
 * (await drafts.load("helper")).length; // pictures.length
 */
export function makeDraftPictures(indexedDB: IDBFactory | undefined): DraftPictures {
  let opened: Promise<IDBDatabase> | null = null;

  function db(factory: IDBFactory): Promise<IDBDatabase> {
    opened ??= new Promise((resolve, reject) => {
      const req = factory.open(DB, 1);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: "agent" });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    return opened;
  }

  async function run<T>(
    mode: IDBTransactionMode,
    op: (store: IDBObjectStore) => IDBRequest<T>,
  ): Promise<T | undefined> {
    if (!indexedDB) return undefined;
    const d = await db(indexedDB);
    return new Promise((resolve, reject) => {
      const t = d.transaction(STORE, mode);
      const req = op(t.objectStore(STORE));
      t.oncomplete = () => resolve(req.result);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }

  return {
    async load(agent) {
      const row = await run<{ agent: string; pictures: Picture[] } | undefined>("readonly", (s) => s.get(agent)).catch(
        () => undefined,
      );
      return row?.pictures ?? [];
    },
    async save(agent, pictures) {
      const kept = pictures.map(({ key, blob, type, name, width, height, id }) => ({
        key,
        blob,
        type,
        name,
        ...(width ? { width, height } : {}),
        ...(id ? { id } : {}),
      }));
      await run<unknown>(
        "readwrite",
        (s) => (kept.length ? s.put({ agent, pictures: kept }) : s.delete(agent)) as IDBRequest<unknown>,
      ).catch(() => {
        // Storage full or refused (private mode): the pictures stay in the composer for this page's life.
      });
    },
  };
}
