// Work that can wait for an idle moment of the page's thread.

/**
 * Run callback when the page is next idle, or after timeoutMs at the latest. Safari has
 * no requestIdleCallback: a short timer then stands in for an idle moment.
 * @param {() => void} callback @param {number} timeoutMs
 */
export function whenIdle(callback, timeoutMs) {
  if ("requestIdleCallback" in globalThis) requestIdleCallback(() => callback(), { timeout: timeoutMs });
  else setTimeout(callback, 50);
}
