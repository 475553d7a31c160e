#!/usr/bin/env node
// The `streamdoctor` command: runs the compiled JavaScript in dist/ (`npm run build`; `npm ci`
// builds it), with stack traces mapped back to the TypeScript sources.
process.setSourceMapsEnabled(true);
let runCli;
try {
  ({ runCli } = await import('../dist/src/cli/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('/dist/src/cli/main.js')) throw error;
  process.stderr.write('streamdoctor: dist/ is missing; build it with `npm run build` (npm ci does it)\n');
  process.exit(1);
}
process.exitCode = await runCli(process.argv.slice(2));
