// Loaded with `--require` through NODE_OPTIONS (bench/support/split-launcher.ts, BENCH_PROFILE=<dir>):
// Node 20 refuses --cpu-prof there, so the process profiles itself through the inspector and
// writes <dir>/<service>-<pid>.cpuprofile when it exits (an in-thread session answers at once).
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, `router-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
