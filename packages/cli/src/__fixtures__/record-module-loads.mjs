// Preloaded with `--import` (through NODE_OPTIONS): appends "<pid> <url>" for every module the process loads,
// import or require, to the file $TOOLBUS_TEST_MODULE_LOG, so a test can see what a command loaded and when. The
// pid tells the command's own loads from those of any Node child it starts with the same environment.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.TOOLBUS_TEST_MODULE_LOG;
if (log) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(log, `${process.pid} ${url}\n`);
      return next(url, context);
    },
  });
}
