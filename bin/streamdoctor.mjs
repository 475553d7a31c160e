#!/usr/bin/env node
// The `streamdoctor` command. TypeScript sources are compiled on load by tsx, so a fresh
// clone works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
