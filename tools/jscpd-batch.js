#!/usr/bin/env node
// Runs jscpd's own detector (the library behind the `jscpd` command, same default options:
// 5 lines, 50 tokens, mild mode) over many repositories in one Node.js process.
// stdin: JSON list of {"id": str, "path": str}; stdout: JSON list, one entry per repository:
// {"id", "clones": [[fileA, startA, endA, fileB, startB, endB], ...], "duplicatedLines", "error"}
// File names are relative to the repository's path; lines are 1-based and inclusive.
//
// The repositories of one batch are mostly the same files (one slice, its arms, one candidate
// each), so a file's tokens and its rolling-hash frames are computed once per distinct content
// and replayed for every repository holding that content: the detector sees exactly the frames
// jscpd's own token map would yield, in the same order, under each file's own name.
"use strict";

const path = require("path");
const { getDefaultOptions, MemoryStore, Statistic } = require("@jscpd/core");
const { InFilesDetector, getFilesToDetect } = require("@jscpd/finder");
const { Tokenizer, getSupportedFormats } = require("@jscpd/tokenizer");

/** A jscpd token map replayed from frames computed once: same frames, this file's name. */
class ReplayedTokensMap {
  constructor(id, computed) {
    this.id = id;
    this.computed = computed;
    this.position = 0;
  }
  getId() { return this.id; }
  getFormat() { return this.computed.format; }
  getLinesCount() { return this.computed.linesCount; }
  getTokensCount() { return this.computed.tokensCount; }
  [Symbol.iterator]() { return this; }
  next() {
    const frame = this.computed.frames[this.position];
    if (frame === undefined) return { done: true, value: false };
    this.position++;
    return { done: false, value: { id: frame.id, sourceId: this.id, start: frame.start, end: frame.end } };
  }
}

/** jscpd's tokenizer, remembering every content's token maps as lists of frames. */
class MemoizingTokenizer {
  constructor() {
    this.tokenizer = new Tokenizer();
    this.byFormat = new Map();
  }
  generateMaps(id, data, format, options) {
    let known = this.byFormat.get(format);
    if (known === undefined) this.byFormat.set(format, (known = new Map()));
    let computed = known.get(data);
    if (computed === undefined) {
      computed = this.tokenizer.generateMaps(id, data, format, options).map((map) => {
        const frames = [];
        for (let step = map.next(); !step.done; step = map.next()) {
          frames.push({ id: step.value.id, start: step.value.start, end: step.value.end });
        }
        return {
          format: map.getFormat(), linesCount: map.getLinesCount(),
          tokensCount: map.getTokensCount(), frames,
        };
      });
      known.set(data, computed);
    }
    return computed.map((map) => new ReplayedTokensMap(id, map));
  }
}

const NOT_FOUND = new Error("not found");

/** jscpd's memory store, rejecting a miss with one shared error instead of a new one each time. */
class QuickMemoryStore extends MemoryStore {
  get(key) {
    const values = this.values[this._namespace];
    return key in values ? Promise.resolve(values[key]) : Promise.reject(NOT_FOUND);
  }
}

const tokenizer = new MemoizingTokenizer();

async function detect(root) {
  const options = {
    ...getDefaultOptions(),
    path: [root],
    silent: true,
    reporters: [],
  };
  options.format = getSupportedFormats();
  const files = getFilesToDetect(options);
  const statistic = new Statistic();
  const detector = new InFilesDetector(tokenizer, new QuickMemoryStore(), statistic, options);
  const clones = await detector.detect(files);
  const relative = (name) => path.relative(root, name);
  return {
    clones: clones.map((c) => [
      relative(c.duplicationA.sourceId), c.duplicationA.start.line, c.duplicationA.end.line,
      relative(c.duplicationB.sourceId), c.duplicationB.start.line, c.duplicationB.end.line,
    ]),
    duplicatedLines: statistic.getStatistic().total.duplicatedLines,
  };
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const repositories = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const results = [];
  for (const { id, path: root } of repositories) {
    try {
      results.push({ id, ...(await detect(path.resolve(root))), error: null });
    } catch (error) {
      results.push({ id, clones: [], duplicatedLines: null, error: String(error && error.message || error) });
    }
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack || error));
  process.exit(1);
});
