/**
 * The hooks installed into every repository. `pre-receive` is a tiny `sh` script that runs the Node client
 * below with the node binary of the server that spawned `receive-pack` (both named in receive-pack's
 * environment). The client hands the ref updates to that server over a Unix socket and obeys its answer;
 * without the server's environment (a push straight into the directory) the push is refused, so every ref
 * change reaches the event log.
 */

export const HOOK_CLIENT_FILE = 'forgefold-hook.cjs';

export const preReceiveScript = `#!/bin/sh
# Installed by Forgefold: the server that spawned receive-pack accepts or refuses the push.
if [ -z "$FORGEFOLD_HOOK_SOCKET" ] || [ -z "$FORGEFOLD_NODE" ]; then
  echo "Pushes are accepted only through the Forgefold server." >&2
  exit 1
fi
exec "$FORGEFOLD_NODE" "$(dirname "$0")/${HOOK_CLIENT_FILE}" pre-receive
`;

/** CommonJS without dependencies: it runs as it is, whatever the server's module system. */
export const hookClientScript = `'use strict';
// Installed by Forgefold. Reads receive-pack's ref updates from stdin, asks the server (a JSON line over the
// Unix socket in FORGEFOLD_HOOK_SOCKET, with the per-push FORGEFOLD_HOOK_TOKEN), prints its message (git shows
// it as "remote: ...") and exits 0 to accept, 1 to refuse.
const net = require('node:net');
const input = [];
process.stdin.on('data', (chunk) => input.push(chunk));
process.stdin.on('end', () => {
  const updates = Buffer.concat(input).toString('utf8').split('\\n').filter((line) => line.length > 0).map((line) => {
    const [oldSha, newSha, ref] = line.split(' ');
    return { oldSha, newSha, ref };
  });
  const env = process.env;
  const request = {
    token: env.FORGEFOLD_HOOK_TOKEN || '',
    hook: process.argv[2] || '',
    updates,
    quarantine: {
      GIT_OBJECT_DIRECTORY: env.GIT_OBJECT_DIRECTORY || '',
      GIT_ALTERNATE_OBJECT_DIRECTORIES: env.GIT_ALTERNATE_OBJECT_DIRECTORIES || '',
      GIT_QUARANTINE_PATH: env.GIT_QUARANTINE_PATH || '',
    },
  };
  let answer = '';
  const socket = net.connect(env.FORGEFOLD_HOOK_SOCKET);
  socket.setEncoding('utf8');
  socket.on('connect', () => socket.write(JSON.stringify(request) + '\\n'));
  socket.on('data', (data) => { answer += data; });
  socket.on('end', () => finish(answer));
  socket.on('error', (error) => {
    process.stderr.write('Forgefold: the push could not be checked (' + error.message + ')\\n');
    process.exit(1);
  });
});
function finish(answer) {
  let reply;
  try { reply = JSON.parse(answer); } catch (error) { reply = { accepted: false, message: 'Forgefold: the push could not be checked' }; }
  if (typeof reply.message === 'string' && reply.message.length > 0) {
    process.stderr.write(reply.message.endsWith('\\n') ? reply.message : reply.message + '\\n');
  }
  process.exit(reply.accepted === true ? 0 : 1);
}
`;
