// Handing a file the page made to the browser as a download: the notebook's Markdown, an
// exported store, a package. Needs no storage, network or Python.

/**
 * Save data under a name, as the browser saves downloads.
 * @param {string} name @param {BlobPart} data @param {string} type  its media type
 */
export function saveFile(name, data, type) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // A download started from a click reads the blob at once; a large one may still be
  // reading it in the next task, so the URL goes a minute later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
