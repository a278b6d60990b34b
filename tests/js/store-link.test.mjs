// A store in a link's fragment: written and read back to the same store, refused past
// the size limit with both sizes, and a damaged link refused with a problem, never
// thrown. What a link's text says is the engine's to judge (the browser test opens it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { deflateRawSync } from "node:zlib";

import { LINK_PARAM, MAX_LINK_CHARS, linkPayload, readStoreLink, storeLink, withoutStoreLink } from "../../site/js/editor/store-link.js";

const PAGE = "https://example.org/workbench/?question=timeout-incident&stage=2&budget_words=40&hide=scorer#experiment";
const read = (/** @type {string} */ name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"));

for (const name of ["store.json", "support-store.json"]) {
  test(`fixtures/${name} goes through a link and back as the same store, with the share options and not the policy`, async () => {
    const store = read(name);
    const link = await storeLink(store, PAGE);
    assert.ok(link.ok, "ok" in link && !link.ok ? link.message : "");
    const url = new URL(link.url);
    assert.equal(url.search, "?stage=2&hide=scorer", "the link keeps its share options, not the policy read against the site's own store");
    assert.match(url.hash, new RegExp(`^#${LINK_PARAM}=[A-Za-z0-9_-]+$`));
    assert.ok(link.url.length <= MAX_LINK_CHARS);
    assert.equal(link.chars, link.url.length);
    const back = await readStoreLink(url.hash);
    assert.ok(back.ok);
    assert.deepEqual(JSON.parse(back.text), store);
  });
}

test("a store past the limit is refused with the link's size and the advice to export", async () => {
  const store = read("store.json");
  // Text that compresses poorly: distinct words.
  store.records = Array.from({ length: 60 }, (_, i) => ({ ...store.records[0], id: `R${i}`, text: Array.from({ length: 30 }, (_, j) => ((i * 7919 + j * 104729) % 1_000_003).toString(36)).join(" ") }));
  const link = await storeLink(store, PAGE);
  assert.equal(link.ok, false);
  assert.ok(link.chars > MAX_LINK_CHARS);
  assert.ok(!link.ok && link.message.includes(link.chars.toLocaleString("en")));
  assert.match(!link.ok ? link.message : "", /too large for a link.*at most 8,000.*Export the store and share the file instead/);
});

test("a fragment that is no store link is left alone", () => {
  assert.equal(linkPayload("#experiment"), null);
  assert.equal(linkPayload(""), null);
  assert.equal(withoutStoreLink("https://example.org/?stage=2#experiment"), "https://example.org/?stage=2#experiment");
  assert.equal(withoutStoreLink("https://example.org/?stage=2#store=abc"), "https://example.org/?stage=2");
});

/** @param {string} hash */
const problemOf = async (hash) => {
  const read = await readStoreLink(hash);
  assert.equal(read.ok, false);
  return !read.ok ? read.problems : [];
};

test("damaged links are refused with a problem, never thrown", async () => {
  const packed = (/** @type {string | Buffer} */ text) => deflateRawSync(Buffer.from(text)).toString("base64url");
  const good = packed('{"schema": 1}');
  const cases = {
    "not base64url": ["#store=ab$cd", /not in the form a copied link has/],
    "cut to one character of a group": ["#store=abcde", /not in the form a copied link has/],
    empty: ["#store=", /not in the form a copied link has/],
    "not deflate": [`#store=${Buffer.from("plain text, not packed").toString("base64url")}`, /cannot be unpacked/],
    "cut short": [`#store=${good.slice(0, good.length - 4)}`, /cannot be unpacked/],
    "not UTF-8": [`#store=${packed(Buffer.from([0xff, 0xfe, 0x00]))}`, /not text/],
  };
  for (const [name, [hash, message]] of Object.entries(cases)) {
    const problems = await problemOf(/** @type {string} */ (hash));
    assert.equal(problems.length, 1, name);
    assert.equal(problems[0].path, "link", name);
    assert.match(problems[0].message, /** @type {RegExp} */ (message), name);
  }
});

test("a link that unpacks past 20 MB is refused before it is all unpacked", async () => {
  const bomb = deflateRawSync(Buffer.alloc(21 * 1024 * 1024, 32)).toString("base64url");
  assert.ok(bomb.length < 40_000);
  const problems = await problemOf(`#store=${bomb}`);
  assert.match(problems[0].message, /more than 20 MB/);
});

test("a link's text comes back as text, markup and all, for the engine to judge", async () => {
  const store = { schema: 1, title: '<img src=x onerror="alert(1)">', tenants: [], questions: [], records: [] };
  const link = await storeLink(store, PAGE);
  assert.ok(link.ok);
  const back = await readStoreLink(new URL(link.url).hash);
  assert.ok(back.ok);
  assert.equal(JSON.parse(back.text).title, store.title);
});
