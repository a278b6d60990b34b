// Which failure of Python's start the page is told: the runtime file's, when one failed.
//
// One missing runtime file fails Python's start twice over: the download fails, naming
// the file and the HTTP status, and Pyodide, handed nothing, fails its own way
// ("Program terminated with exit(1)"), first or second depending on how the worker's
// tasks happened to run. The page is told one failure, and it must be the file's, on any
// machine: a failed download is told at once (it is the cause), and any other failure
// only once every runtime download under way has settled without failing.
//
// No worker globals: what to do with the failure told is passed in, so Node's tests
// drive it with promises settled in any order.

/** A runtime file that could not be had: its message names the file and what went wrong. */
export class LoadError extends Error {
  name = "LoadError";
}

/**
 * @param {(error: unknown) => void} tell  called once, with the failure the page is to see
 */
export function loadFailure(tell) {
  /** @type {Set<Promise<unknown>>} */
  const underWay = new Set();
  let told = false;

  /** @param {unknown} error */
  function tellOnce(error) {
    if (told) return;
    told = true;
    tell(error);
  }

  /** Every download, including those started meanwhile, has settled. */
  async function downloadsSettled() {
    while (underWay.size) await Promise.allSettled([...underWay]);
  }

  return {
    /**
     * A runtime download under way: its failure is told as soon as it fails, whoever
     * else awaits it. Returns the promise it was given.
     * @template T @param {Promise<T>} promise
     */
    download(promise) {
      underWay.add(promise);
      promise.then(
        () => underWay.delete(promise),
        (error) => {
          underWay.delete(promise);
          fail(error);
        },
      );
      return promise;
    },
    fail,
    /** A failure was told: later ones follow from it. */
    get told() {
      return told;
    },
  };

  /** Python's start failed: told now if a file is named, else once no download can still fail. @param {unknown} error */
  function fail(error) {
    if (error instanceof LoadError) tellOnce(error);
    else downloadsSettled().then(() => tellOnce(error));
  }
}
