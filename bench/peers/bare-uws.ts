/**
 * The ceiling: a bare uWebSockets.js server (the same build the bridge uses) answering `GET /tour/:name`
 * with a fixed JSON body and echoing each binary WebSocket frame as a small JSON text frame + the frame.
 * No routing table, no validation, no logging, no actors: what the transport itself can do here.
 */
import { uWS, uwsChoice } from '../../src/transport/uws-build.js';
import { echoMeta, parsePeerArgs, PEER_MAX_PAYLOAD } from './args.js';

// The build the bridge would choose here, by the same rule.
if (!uwsChoice.ok) {
  process.stderr.write(`bare-uws: ${uwsChoice.refusal}\n`);
  process.exit(2);
}
const { port, body } = parsePeerArgs(process.argv.slice(2));
const app = uWS.App();

app.get('/tour/:tour_name', (res) => {
  res.cork(() => {
    res.writeHeader('content-type', 'application/json');
    res.end(body);
  });
});
app.get('/health', (res) => {
  res.end('{"ok":true}');
});

app.ws('/ws', {
  compression: uWS.DISABLED,
  maxPayloadLength: PEER_MAX_PAYLOAD,
  maxBackpressure: 2 ** 31 - 1,
  idleTimeout: 120,
  message: (ws, message, isBinary) => {
    if (!isBinary) return;
    // The message memory is valid until this handler returns, which is all a synchronous echo needs.
    ws.cork(() => {
      ws.send(echoMeta(message.byteLength), false);
      ws.send(message, true);
    });
  },
});

app.listen('127.0.0.1', port, (socket) => {
  if (socket === false) {
    process.stderr.write(`bare-uws: cannot listen on ${port}\n`);
    process.exit(1);
  }
});

process.on('SIGTERM', () => process.exit(0));
