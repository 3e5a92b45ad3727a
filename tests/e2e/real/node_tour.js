// node_tour: timers, promises, fs, a child through execSync, a worker
// thread and crypto, each printing only what does not depend on timing.
const fs = require('fs');
const cp = require('child_process');
const crypto = require('crypto');
const { Worker } = require('worker_threads');

fs.writeFileSync('f.txt', 'hello\n'.repeat(100));
console.log('read', fs.readFileSync('f.txt', 'utf8').length);
console.log('exec', cp.execSync('echo child').toString().trim());
console.log('random bytes', crypto.randomBytes(16).length);
console.log('sha256', crypto.createHash('sha256').update('x').digest('hex'));
new Promise((r) => setTimeout(r, 20)).then(() => {
  const w = new Worker(
    'const { parentPort } = require("worker_threads");' +
      'let s = 0; for (let i = 0; i < 1e6; i++) s += i;' +
      'parentPort.postMessage(s);',
    { eval: true });
  w.on('message', (m) => {
    console.log('worker', m);
    w.terminate();
  });
});
