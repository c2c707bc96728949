#!/usr/bin/env node
// Runs jscpd's own detector (the library behind the `jscpd` command, same default options:
// 5 lines, 50 tokens, mild mode) over many repositories in one Node.js process.
// stdin: JSON list of {"id": str, "path": str}; stdout: JSON list, one entry per repository:
// {"id", "clones": [[fileA, startA, endA, fileB, startB, endB], ...], "duplicatedLines", "error"}
// File names are relative to the repository's path; lines are 1-based and inclusive.
"use strict";

const path = require("path");
const { getDefaultOptions, MemoryStore, Statistic } = require("@jscpd/core");
const { InFilesDetector, getFilesToDetect } = require("@jscpd/finder");
const { Tokenizer, getSupportedFormats } = require("@jscpd/tokenizer");

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
  const detector = new InFilesDetector(new Tokenizer(), new MemoryStore(), statistic, options);
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
