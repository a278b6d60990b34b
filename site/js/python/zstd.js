// Streaming Zstandard decoding of the two large runtime files.
//
// Zstandard decoding in a stream, for the two large runtime files (Python's WebAssembly
// module and the standard library). GitHub Pages compresses them with gzip at best, and
// zstd at level 19 is much smaller, which a learner on a slow link waits for before
// Python can start. No browser decodes zstd by itself, so
// this drives the zstd library's own streaming decoder, compiled to WebAssembly (the
// npm package zstddec; build.py copies out its binary), chunk by chunk as the download
// arrives: the output streams on into WebAssembly's streaming compile, so compiling still
// overlaps the download. Runs in the worker, and under Node for the tests.

// ZSTD_inBuffer and ZSTD_outBuffer: {pointer, size_t size, size_t pos}, 4 bytes each in wasm32.
const BUFFER_STRUCT = 12;
// The decoder's output buffer: larger than zstd's 128 KB block so that each input chunk
// needs few calls, small enough to be handed on while the download goes on.
const OUTPUT_BYTES = 1 << 20;
// size_t results above this are error codes (ZSTD_isError; the decoder does not export it).
const ERROR_THRESHOLD = 2 ** 32 - 120;

/** The compressed data is damaged or not zstd (not a failed download). */
export class ZstdError extends Error {
  name = "ZstdError";
}

/**
 * @typedef {object} DecoderExports  what zstddec's streaming build exports
 * @property {WebAssembly.Memory} memory
 * @property {(size: number) => number} malloc
 * @property {(pointer: number) => void} free
 * @property {() => number} ZSTD_createDCtx
 * @property {(dctx: number) => number} ZSTD_freeDCtx
 * @property {(dctx: number, output: number, input: number) => number} ZSTD_decompressStream
 */

/** Instantiate the decoder from its WebAssembly bytes (or a Response of them). */
export async function loadZstd(/** @type {BufferSource | Response} */ source) {
  const imports = { env: { emscripten_notify_memory_growth: () => {} } };
  const bytes = source instanceof Response ? await source.arrayBuffer() : source;
  const { instance } = await WebAssembly.instantiate(bytes, imports);
  return new ZstdDecoder(/** @type {DecoderExports} */ (/** @type {unknown} */ (instance.exports)));
}

export class ZstdDecoder {
  /** @param {DecoderExports} wasm */
  constructor(wasm) {
    this.wasm = wasm;
  }

  /**
   * The decoded bytes of a stream of zstd frames, as a stream. It errors when the input is
   * not zstd, is damaged or ends in the middle of a frame.
   * @param {ReadableStream<Uint8Array>} compressed
   * @param {(error: Error) => void} [onError]  also told of the error, for a reader that may swallow it
   * @returns {ReadableStream<Uint8Array>}
   */
  decodeStream(compressed, onError = () => {}) {
    const reader = compressed.getReader();
    const session = new DecodeSession(this.wasm);
    return new ReadableStream({
      async pull(controller) {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) {
              session.finish();
              controller.close();
              return;
            }
            const parts = session.push(value);
            for (const part of parts) controller.enqueue(part);
            if (parts.length) return; // wait to be pulled again: back-pressure
          }
        } catch (error) {
          session.release();
          reader.cancel(error).catch(() => {});
          controller.error(error);
          onError(/** @type {Error} */ (error));
        }
      },
      cancel(reason) {
        session.release();
        return reader.cancel(reason);
      },
    });
  }

  /** Decode a whole compressed file at once (the tests' Node runner uses this). */
  async decodeAll(/** @type {Uint8Array<ArrayBuffer>} */ compressed) {
    const stream = this.decodeStream(new Blob([compressed]).stream());
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
}

/** One decompression context and its buffers in the decoder's memory, freed at the end. */
class DecodeSession {
  /** @param {DecoderExports} wasm */
  constructor(wasm) {
    this.wasm = wasm;
    this.dctx = wasm.ZSTD_createDCtx();
    this.input = wasm.malloc(BUFFER_STRUCT);
    this.output = wasm.malloc(BUFFER_STRUCT);
    this.outBytes = wasm.malloc(OUTPUT_BYTES);
    this.inBytes = 0;
    this.inCapacity = 0;
    // The last ZSTD_decompressStream result: 0 once a frame is complete; -1 before any input.
    this.pending = -1;
    if (!this.dctx || !this.input || !this.output || !this.outBytes) throw new ZstdError("the zstd decoder is out of memory");
  }

  /** @param {number} pointer @param {number} at @param {number} size */
  setBuffer(pointer, at, size) {
    const view = new DataView(this.wasm.memory.buffer);
    view.setUint32(pointer, at, true);
    view.setUint32(pointer + 4, size, true);
    view.setUint32(pointer + 8, 0, true);
  }

  /** @param {number} pointer */
  position(pointer) {
    return new DataView(this.wasm.memory.buffer).getUint32(pointer + 8, true);
  }

  /** Decode one chunk of input; returns the output it completes (copies, in order). */
  push(/** @type {Uint8Array} */ chunk) {
    const wasm = this.wasm;
    if (chunk.byteLength === 0) return [];
    if (chunk.byteLength > this.inCapacity) {
      if (this.inBytes) wasm.free(this.inBytes);
      this.inCapacity = Math.max(chunk.byteLength, 64 * 1024);
      this.inBytes = wasm.malloc(this.inCapacity);
      if (!this.inBytes) throw new ZstdError("the zstd decoder is out of memory");
    }
    new Uint8Array(wasm.memory.buffer, this.inBytes, chunk.byteLength).set(chunk);
    this.setBuffer(this.input, this.inBytes, chunk.byteLength);
    const parts = [];
    // Until the input is used up and the last call left room in the output buffer
    // (a full buffer may mean more output is waiting inside the decoder).
    for (;;) {
      this.setBuffer(this.output, this.outBytes, OUTPUT_BYTES);
      const result = wasm.ZSTD_decompressStream(this.dctx, this.output, this.input) >>> 0;
      if (result > ERROR_THRESHOLD) throw new ZstdError(`the data is not valid zstd (decoder error ${2 ** 32 - result})`);
      this.pending = result;
      const produced = this.position(this.output);
      // memory.buffer may have grown during the call: take a fresh view.
      if (produced) parts.push(new Uint8Array(wasm.memory.buffer, this.outBytes, produced).slice());
      if (this.position(this.input) >= chunk.byteLength && produced < OUTPUT_BYTES) return parts;
    }
  }

  finish() {
    const incomplete = this.pending !== 0;
    this.release();
    if (incomplete) throw new ZstdError("the zstd data ended before its last frame was complete");
  }

  release() {
    if (!this.dctx) return;
    const wasm = this.wasm;
    wasm.ZSTD_freeDCtx(this.dctx);
    for (const pointer of [this.input, this.output, this.outBytes, this.inBytes]) if (pointer) wasm.free(pointer);
    this.dctx = 0;
  }
}
