// Builds the fixture of mastra-behaviour.md's Appendix A in the directory
// given as the first argument (it must be empty or missing).
import fs from 'node:fs';
import path from 'node:path';

const ROOT = process.argv[2];
if (!ROOT) { console.error('usage: node fixture.mjs DIR'); process.exit(2); }
const W = (p, c) => { fs.mkdirSync(path.dirname(path.join(ROOT, p)), { recursive: true }); fs.writeFileSync(path.join(ROOT, p), c); };
W('a.txt', 'hello\nworld\n');
W('ten.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
W('empty.txt', '');
W('crlf.txt', 'one\r\ntwo\r\n');
W('noext', 'no extension here\n');
W('img.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
W('arch.zip', Buffer.from('504b0304', 'hex'));
W('x.jsonl', '{"a":1}\n'); W('x.php', '<?php echo 1;\n'); W('x.gif', 'GIF89a'); W('x.svg', '<svg/>\n');
W('big.txt', Array.from({ length: 3000 }, (_, i) => `row ${i + 1} lorem ipsum dolor sit amet`).join('\n'));
W('src/app.ts', 'import { x } from "./x";\nexport const y = x;\n// TODO fix\n');
W('src/util.ts', 'export function add(a: number, b: number) {\n  return a + b; // TODO\n}\n');
W('src/deep/deeper/z.ts', 'const z = 1;\n');
W('src/.hidden.ts', 'TODO hidden\n');
W('dist/out.js', 'TODO ignored\n');
W('.gitignore', 'dist/\n*.log\n');
W('x.log', 'TODO in log\n');
W('Makefile', 'TODO in makefile\n');
W('long.md', 'A'.repeat(600) + 'TODO' + '\n');
W('ctx.md', ['l1', 'l2 TODO', 'l3', 'l4', 'l5', 'l6', 'l7 TODO', 'l8'].join('\n') + '\n');
W('dup.txt', 'foo\nbar\nfoo\n');
W('many.txt', Array.from({ length: 1200 }, () => 'TODO').join('\n'));
W('nonempty/f.txt', 'x');
W('e1/e2/.keep', '');
fs.mkdirSync(path.join(ROOT, 'adir'));
fs.symlinkSync('a.txt', path.join(ROOT, 'link.txt'));
fs.symlinkSync('/etc', path.join(ROOT, 'etclink'));
