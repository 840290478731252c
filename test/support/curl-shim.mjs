#!/usr/bin/env node
// The part of curl the README's examples use, over fetch: for machines without curl (the README test prefers
// the real one). -X, -H, -d/--data, --data-urlencode, --get, --output, --write-out '%{http_code}'; -s, -S ignored.
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
let method;
const headers = {};
const data = [];
let get = false;
let output;
let writeOut;
let url;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  const next = () => args[++i];
  if (arg === '-X' || arg === '--request') method = next();
  else if (arg === '-H' || arg === '--header') {
    const header = next();
    const colon = header.indexOf(':');
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  } else if (arg === '-d' || arg === '--data' || arg === '--data-raw') data.push(next());
  else if (arg === '--data-urlencode') {
    const value = next();
    const eq = value.indexOf('=');
    data.push(eq < 0 ? encodeURIComponent(value) : `${value.slice(0, eq)}=${encodeURIComponent(value.slice(eq + 1))}`);
  } else if (arg === '-G' || arg === '--get') get = true;
  else if (arg === '-o' || arg === '--output') output = next();
  else if (arg === '-w' || arg === '--write-out') writeOut = next();
  else if (arg === '-s' || arg === '-S' || arg === '--silent' || arg === '--show-error' || arg === '-sS') continue;
  else if (arg.startsWith('-')) {
    process.stderr.write(`curl shim: unsupported option ${arg}\n`);
    process.exit(2);
  } else url = arg;
}
let body;
if (data.length > 0) {
  const joined = data.join('&');
  if (get) url += (url.includes('?') ? '&' : '?') + joined;
  else {
    body = joined;
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  }
}
method ??= body !== undefined ? 'POST' : 'GET';
try {
  const response = await fetch(url, { method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (output) writeFileSync(output, bytes);
  else process.stdout.write(bytes);
  if (writeOut) process.stdout.write(writeOut.replaceAll('%{http_code}', String(response.status)));
} catch (error) {
  process.stderr.write(`curl shim: ${error.message}\n`);
  process.exit(7);
}
