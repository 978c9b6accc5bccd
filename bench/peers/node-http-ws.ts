/**
 * The peer: what a typical Node service gives for the same two endpoints, written with `node:http` and the
 * `ws` package (with its native helpers bufferutil and utf-8-validate, as installed here), no framework.
 */
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { echoMeta, parsePeerArgs, PEER_MAX_PAYLOAD } from './args.js';

const { port, body } = parsePeerArgs(process.argv.slice(2));

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/tour/') === true) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.byteLength });
    res.end(body);
    return;
  }
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
    return;
  }
  res.writeHead(404);
  res.end();
});
// Keep-alive connections stay open for the whole run (the default 5 s would only matter between runs).
server.keepAliveTimeout = 120_000;

const wss = new WebSocketServer({
  server,
  path: '/ws',
  perMessageDeflate: false,
  maxPayload: PEER_MAX_PAYLOAD,
});
wss.on('connection', (ws) => {
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
    ws.send(echoMeta(data.byteLength));
    ws.send(data, { binary: true });
  });
});

server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
