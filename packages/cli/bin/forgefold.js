#!/usr/bin/env node
// Runs the TypeScript entry point through tsx so that no build step stands between a clone and a server.
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
