// A store carried in a link's fragment: written compressed, read back as untrusted text.
//
// The fragment (#store=…) never leaves the browser, so no server sees the store. The
// query keeps a link's share options (core/share.js: stage, hidden controls…), so a
// store link may carry both; not the policy, which the page reads before the link's
// store is open, against its own store. Reading a link only turns it back into text;
// the text is then opened like a file, through the engine's parser, with the same messages.

import { SHARE_PARAMS } from "../core/share.js";

/** The fragment's parameter that holds a store. */
export const LINK_PARAM = "store";

// A whole link at most this long, in characters. RFC 9110 (section 4.1) recommends that
// all software support URIs of at least 8000 octets; links in address bars, LMS link
// fields, e-mail and chat stay well inside what each of them keeps whole.
export const MAX_LINK_CHARS = 8000;

// A link's store may unpack to at most this many bytes: a store file's own limit
// (browser/store-file.js), so a small link cannot unpack into a huge one.
const MAX_STORE_BYTES = 20 * 1024 * 1024;

/** @typedef {{path: string, message: string}} Problem  as the engine reports one */

/** @param {Uint8Array} bytes @returns {string} */
function toBase64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {string} text @returns {Uint8Array | null} null when it is not base64url */
function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** @param {Uint8Array} bytes @param {CompressionStream | DecompressionStream} stream @param {number} [limit] */
async function through(bytes, stream, limit = Infinity) {
  const writer = stream.writable.getWriter();
  // Errors surface on the reading side; the writer's own promises would only repeat them.
  writer.write(/** @type {Uint8Array<ArrayBuffer>} */ (bytes)).catch(() => {});
  writer.close().catch(() => {});
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  const reader = stream.readable.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(read.value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * A link to the page that carries the store in its fragment, or why there is none: past
 * MAX_LINK_CHARS it says to export the file instead, with both sizes.
 * @param {any} store  the store (written compact: the link's size is what matters)
 * @param {string} page  the page's address: its share options are kept, its policy and fragment are not
 * @returns {Promise<{ok: true, url: string, chars: number} | {ok: false, chars: number, message: string}>}
 */
export async function storeLink(store, page) {
  const packed = await through(new TextEncoder().encode(JSON.stringify(store)), new CompressionStream("deflate-raw"));
  const base = new URL(page);
  base.hash = "";
  const kept = [...base.searchParams].filter(([name]) => SHARE_PARAMS.includes(name));
  base.search = new URLSearchParams(kept).toString();
  const url = `${base.href}#${LINK_PARAM}=${toBase64url(/** @type {Uint8Array} */ (packed))}`;
  if (url.length <= MAX_LINK_CHARS) return { ok: true, url, chars: url.length };
  const message =
    `This store is too large for a link: it would be ${url.length.toLocaleString("en")} characters long, ` +
    `and a link may be at most ${MAX_LINK_CHARS.toLocaleString("en")}. Export the store and share the file instead.`;
  return { ok: false, chars: url.length, message };
}

/**
 * The store's packed text in a fragment, or null when the fragment is no store link.
 * @param {string} hash  location.hash, with or without its "#"
 * @returns {string | null}
 */
export function linkPayload(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  return params.get(LINK_PARAM);
}

/**
 * A store link's store as text, to open like a file; or the problems, in the engine's
 * shape, when the fragment cannot be read.
 * @param {string} hash
 * @returns {Promise<{ok: true, text: string} | {ok: false, problems: Problem[]}>}
 */
export async function readStoreLink(hash) {
  const payload = linkPayload(hash);
  const path = "link";
  if (payload === null) return { ok: false, problems: [{ path, message: "carries no store" }] };
  const bytes = fromBase64url(payload);
  if (!bytes || bytes.length === 0) {
    return { ok: false, problems: [{ path, message: "is damaged: its store is not in the form a copied link has (it may have been cut short)" }] };
  }
  let unpacked;
  try {
    unpacked = await through(bytes, new DecompressionStream("deflate-raw"), MAX_STORE_BYTES);
  } catch {
    return { ok: false, problems: [{ path, message: "is damaged: its store cannot be unpacked (it may have been cut short or changed)" }] };
  }
  if (!unpacked) return { ok: false, problems: [{ path, message: "unpacks to more than 20 MB, more than a store file may hold" }] };
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(unpacked);
  } catch {
    return { ok: false, problems: [{ path, message: "is damaged: its store is not text" }] };
  }
  return { ok: true, text };
}

/**
 * The address without a store link's fragment (its query kept), for the address bar
 * once the store is open: a reload then finds the draft, not the link's first state.
 * @param {string} href @returns {string}
 */
export function withoutStoreLink(href) {
  const url = new URL(href);
  if (linkPayload(url.hash) === null) return href;
  url.hash = "";
  return url.href;
}
