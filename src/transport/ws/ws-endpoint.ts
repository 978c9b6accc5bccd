import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { ConversationHub } from '../../actors/conversation-hub.js';
import type { SessionTransportEvent } from '../../actors/session/session-types.js';
import type { Logger } from '../../log/logger.js';
import { createLossReporter, type LossReporter } from '../../log/loss-reporter.js';
import type { BridgeMetrics } from '../../metrics/bridge-metrics.js';
import type { CounterFamily, PlainCounter } from '../../metrics/plain-metrics.js';
import { type AudioPairFrame, type OutboundFrame, CLOSE_CODES } from '../../protocol/ws/index.js';
import { OPEN_POLICY, type AccessPolicy } from '../http/access-policy.js';
import { uWS } from '../uws-build.js';
import { AddressCounts } from './address-counts.js';
import { SharedInboundBudget, type InboundRates } from '../../actors/budgets.js';
import { SendTimeout } from './send-timeout.js';
import { upgradeHandler, type SessionSocket } from './ws-upgrade.js';

export interface ConversationEndpointOptions {
  readonly hub: ConversationHub;
  readonly log: Logger;
  readonly policy?: AccessPolicy;
  readonly metrics: BridgeMetrics;
}

export interface ConversationEndpoint {
  /** Sockets currently open (sessions plus ones being refused). */
  readonly openSockets: () => number;
}

/** The `/ws` endpoint: socket events to session events, outbound items to frames (the logic: src/actors). */
export const installConversationEndpoint = (
  app: TemplatedApp,
  options: ConversationEndpointOptions,
): ConversationEndpoint => {
  const endpoint = endpointState(options);
  const { limits } = endpoint;
  const largestFrameBytes = Math.max(limits.maxBinaryFrameBytes, limits.maxTextFrameBytes);
  app.ws<SessionSocket>('/ws', {
    compression: uWS.DISABLED,
    // uWS drops a connection whose frame is past this without a close frame (1006): a frame over our limit
    // reaches the session, which closes with 1009 and a reason; only one past twice it is cut off here.
    maxPayloadLength: Math.min(2 * largestFrameBytes + 1024, 2 ** 31 - 1),
    // Our own policy (close 1008 past maxSendBufferBytes) decides; uWS must never drop half a pair on its
    // own (closeOnBackpressureLimit keeps its default, off).
    maxBackpressure: 2 ** 31 - 1,
    // uWS pings idle sockets on its own and closes those that stop answering.
    idleTimeout: 120,
    sendPingsAutomatically: true,

    upgrade: upgradeHandler(endpoint),
    open: openHandler(endpoint),
    message: messageHandler(endpoint),
    drain: (ws) => {
      report(ws.getUserData(), { type: 'ws.buffered', bytes: ws.getBufferedAmount() });
    },
    // uWS answers every ping with a pong on its own; a client that floods pings and never reads would
    // grow those without bound. Each ping reports what waits, so the send-buffer limit (close 1008) holds
    // for control frames too, within one pong (at most 127 bytes).
    ping: (ws) => {
      const buffered = ws.getBufferedAmount();
      if (buffered > 0) report(ws.getUserData(), { type: 'ws.buffered', bytes: buffered });
    },
    pong: (ws) => {
      endpoint.sendTimeout.answered(ws.getUserData());
    },
    close: closeHandler(endpoint),
  });
  return { openSockets: () => endpoint.openSockets };
};

/** What the endpoint's handlers share: its options, its counts, the log of sessions refused per address. */
interface EndpointState {
  readonly hub: ConversationHub;
  readonly log: Logger;
  readonly policy: AccessPolicy;
  readonly metrics: BridgeMetrics;
  readonly counters: ReturnType<typeof frameCounters>;
  readonly limits: ConversationHub['limits'];
  readonly addresses: AddressCounts;
  readonly inboundRates: InboundRates;
  /** What all sessions together may send, shared among their addresses. */
  readonly inboundShare: SharedInboundBudget;
  /** A client retrying past its address's limit is refused as often as it retries: one line, then counts. */
  readonly refusedForAddress: LossReporter;
  /** A flood from many sessions of one address is cut session by session: one line, then counts. */
  readonly cutForShare: LossReporter;
  /** Sockets open now (sessions plus ones being refused). */
  openSockets: number;
  /** Closes a client that reads nothing for `limits.sendTimeoutMs`. */
  readonly sendTimeout: SendTimeout<SessionSocket>;
}

/**
 * The frames and bytes each way, by kind, and what the outbound frames say (refusals, turns ended). Text
 * sizes are in characters (JSON is ASCII but for the text a robot says).
 */
const frameCounters = (metrics: BridgeMetrics) => {
  const counters = (direction: 'in' | 'out', kind: 'text' | 'binary') => ({
    frames: metrics.wsFrames.child(direction, kind),
    bytes: metrics.wsBytes.child(direction, kind),
  });
  const outText = counters('out', 'text');
  const outBinary = counters('out', 'binary');
  // Each reason's child, bound the first time it is told.
  const byLabel =
    (family: CounterFamily, bound = new Map<string, PlainCounter>()) =>
    (label: string) => {
      let counter = bound.get(label);
      if (counter === undefined) bound.set(label, (counter = family.child(label)));
      return counter;
    };
  const refused = byLabel(metrics.wsRefusedFrames);
  const turns = byLabel(metrics.wsTurns);
  return {
    inText: counters('in', 'text'),
    inBinary: counters('in', 'binary'),
    outbound: (frame: Exclude<OutboundFrame, { kind: 'close' }>): void => {
      if (frame.kind === 'text') {
        outText.frames.value += 1;
        outText.bytes.value += frame.text.length;
        // An error frame answers a client frame that was not carried out.
        if (frame.message.type === 'error') refused(frame.message.code).value += 1;
        else if (frame.message.type === 'turn_end') turns(frame.message.outcome).value += 1;
        return;
      }
      outText.frames.value += 1;
      outText.bytes.value += frame.meta.length;
      outBinary.frames.value += 1;
      for (const part of frame.binary) outBinary.bytes.value += part.byteLength;
    },
  };
};

const endpointState = ({
  hub,
  log,
  policy = OPEN_POLICY,
  metrics,
}: ConversationEndpointOptions): EndpointState => {
  const limits = hub.limits;
  return {
    hub,
    log,
    policy,
    metrics,
    counters: frameCounters(metrics),
    limits,
    addresses: new AddressCounts(limits.maxSessionsPerAddress, limits.maxSessions),
    inboundRates: {
      framesPerSecond: limits.maxInboundFramesPerSecond,
      bytesPerSecond: limits.maxInboundBytesPerSecond,
      largestFrameBytes: Math.max(limits.maxBinaryFrameBytes, limits.maxTextFrameBytes),
    },
    inboundShare: new SharedInboundBudget(
      {
        framesPerSecond: limits.maxProcessInboundFramesPerSecond,
        bytesPerSecond: limits.maxProcessInboundBytesPerSecond,
      },
      performance.now(),
    ),
    refusedForAddress: createLossReporter({
      log,
      message: 'sessions refused: too many from one address',
      countField: 'refused',
      withBytes: false,
    }),
    cutForShare: createLossReporter({
      log,
      message: 'sessions closed: the process inbound budget was short and their address sent the most',
      countField: 'closed',
      withBytes: false,
    }),
    openSockets: 0,
    sendTimeout: new SendTimeout<SessionSocket>(limits.sendTimeoutMs, (ws) => {
      closeTimedOut(log, metrics, limits.sendTimeoutMs, ws);
    }),
  };
};

/** A client that answered no ping for the send time-out: closed, what it held given back. */
const closeTimedOut = (
  log: Logger,
  metrics: BridgeMetrics,
  timeoutMs: number,
  ws: WebSocket<SessionSocket>,
): void => {
  const socket = ws.getUserData();
  if (!socket.open) return;
  metrics.wsSessionsCut.child('send_timeout').value += 1;
  sessionLog(log, socket).warn(
    { sendTimeoutMs: timeoutMs, bufferedBytes: ws.getBufferedAmount() },
    'session closed: the client read nothing for the send time-out',
  );
  const { code, reason } = CLOSE_CODES.sendTimedOut;
  ws.end(code, reason);
};

/**
 * An open socket: closed at once past its address's limit, or when only the places kept for addresses
 * holding few are left; else given a session (when the hub has room) and a share of the inbound budget.
 */
const openHandler =
  (endpoint: EndpointState) =>
  (ws: WebSocket<SessionSocket>): void => {
    const socket = ws.getUserData();
    socket.open = true;
    endpoint.openSockets += 1;
    endpoint.sendTimeout.opened(ws);
    const { addresses, metrics } = endpoint;
    const refusal = addresses.take(socket.address);
    if (refusal !== undefined) {
      endpoint.refusedForAddress.lost(0, { address: socket.address, limit: addresses.limit, refusal });
      metrics.wsSessionsRefused.child(refusal).value += 1;
      const { code, reason } =
        refusal === 'per_address'
          ? CLOSE_CODES.tooManySessionsFromAddress
          : CLOSE_CODES.placesKeptForOtherAddresses;
      socket.endedBySession = true;
      ws.end(code, reason);
      return;
    }
    socket.countedForAddress = true;
    socket.share = endpoint.inboundShare.join(socket.address, performance.now());
    openSession(endpoint, ws, socket);
  };

/** Asks the hub for a session that writes to `ws`; it may refuse (max_sessions). */
const openSession = (
  { hub, log, metrics, counters, limits }: EndpointState,
  ws: WebSocket<SessionSocket>,
  socket: SessionSocket,
): void => {
  const slog = sessionLog(log, socket);
  const send = (frame: OutboundFrame) => {
    if (!socket.open) return;
    if (frame.kind === 'close') {
      // Runs the close handler synchronously, which marks the socket closed (and tells the session
      // nothing: it is the one closing).
      socket.endedBySession = true;
      ws.end(frame.code, frame.reason);
      return;
    }
    // Nothing is reported back: the kiosk's queue reads bufferedBytes after its writes.
    writeData(ws, frame);
    counters.outbound(frame);
  };
  // Several frames of one decision (a turn's last pair and its turn_end) in one write while they fit the
  // cork buffer (16 KiB); a closed socket cannot be corked, and `send` then drops the frames anyway.
  const batch = (writes: () => void) => {
    if (socket.open) ws.cork(writes);
    else writes();
  };
  socket.session = hub.openSession(
    send,
    {
      batch,
      bufferedBytes: () => (socket.open ? ws.getBufferedAmount() : 0),
      onCallAbandoned: (service) => {
        slog.info({ service }, `session ended before the /${service} answer; a late answer will be dropped`);
      },
    },
    // The audio budget's share is per address, keyed as the sessions per address are.
    socket.address,
  );
  if (socket.session !== undefined) slog.info('session opened');
  else {
    metrics.wsSessionsRefused.child('max_sessions').value += 1;
    slog.warn({ limit: limits.maxSessions }, 'session refused: too many sessions');
  }
};

/**
 * Writes one data item. A pair goes out in one corked write, so nothing can come between its frames; its
 * binary frame is one WebSocket message: one frame, or fragments (views of the header and the audio,
 * uncopied). What the socket cannot take, uWS buffers; the caller reads getBufferedAmount().
 */
const writeData = (ws: WebSocket<SessionSocket>, frame: Exclude<OutboundFrame, { kind: 'close' }>): void => {
  if (frame.kind === 'text') {
    ws.send(frame.text, false);
    return;
  }
  const fragments = fragmentsOf(frame.binary);
  const lastIndex = fragments.length - 1;
  ws.cork(() => {
    ws.send(frame.meta, false);
    fragments.forEach((fragment, index) => {
      if (lastIndex === 0) ws.send(fragment, true);
      else if (index === 0) ws.sendFirstFragment(fragment, true);
      else if (index < lastIndex) ws.sendFragment(fragment);
      else ws.sendLastFragment(fragment);
    });
  });
};

/**
 * The largest frame of a binary message the bridge writes. uWebSockets.js assembles a frame over its 16 KiB
 * cork buffer in the socket's send buffer, which keeps its capacity until the socket closes (a 512 KiB
 * message leaves about 1 MiB in each kiosk's socket); as fragments, each socket keeps about a fragment's
 * worth, and the client reassembles one message. Measured in docs/performance.md.
 */
export const FRAGMENT_BYTES = 64 * 1024;

/** The binary message's parts, each cut into pieces of at most FRAGMENT_BYTES (views, not copies). */
const fragmentsOf = (parts: AudioPairFrame['binary']): Uint8Array[] => {
  const fragments: Uint8Array[] = [];
  for (const part of parts) {
    if (part.byteLength <= FRAGMENT_BYTES) fragments.push(part);
    else {
      for (let start = 0; start < part.byteLength; start += FRAGMENT_BYTES) {
        fragments.push(part.subarray(start, start + FRAGMENT_BYTES));
      }
    }
  }
  return fragments;
};

/** A client frame: counted, checked against its socket's and its address's inbound budgets, copied, handed on. */
const messageHandler = (endpoint: EndpointState) => {
  const { counters, inboundShare } = endpoint;
  return (ws: WebSocket<SessionSocket>, message: ArrayBuffer, isBinary: boolean): void => {
    const socket = ws.getUserData();
    const inbound = isBinary ? counters.inBinary : counters.inText;
    inbound.frames.value += 1;
    inbound.bytes.value += message.byteLength;
    // Checked before the frame is copied or reaches the session: a flood costs a comparison a frame.
    const now = performance.now();
    if (!socket.budget.take(message.byteLength, now)) {
      if (socket.open) closeFlooding(endpoint, ws, socket);
      return;
    }
    if (socket.share !== undefined && !inboundShare.take(socket.share, message.byteLength, now)) {
      if (socket.open) closeOverShare(endpoint, ws, socket);
      return;
    }
    report(
      socket,
      isBinary ? { type: 'ws.binary', data: copyOf(message) } : { type: 'ws.text', data: copyOf(message) },
    );
  };
};

/**
 * uWebSockets.js reuses a message's memory once the handler returns; queued audio needs its own copy. Not
 * zero-filled first, as `slice` does (measured in docs/performance.md), and never pooled: the copy owns its
 * whole ArrayBuffer, which the ROS message can take without another copy.
 */
const copyOf = (message: ArrayBuffer): Uint8Array => {
  const copy = new Uint8Array(Buffer.allocUnsafeSlow(message.byteLength).buffer);
  copy.set(new Uint8Array(message));
  return copy;
};

const closeFlooding = (
  { log, metrics, inboundRates }: EndpointState,
  ws: WebSocket<SessionSocket>,
  socket: SessionSocket,
): void => {
  metrics.wsRefusedFrames.child('rate_limited').value += 1;
  sessionLog(log, socket).warn(
    { framesPerSecond: inboundRates.framesPerSecond, bytesPerSecond: inboundRates.bytesPerSecond },
    'session closed: the client sent faster than its inbound budget',
  );
  const { code, reason } = CLOSE_CODES.inboundRateExceeded;
  ws.end(code, reason);
};

/** The process is short and this client's address sends the most: this session is closed. */
const closeOverShare = (
  { metrics, inboundShare, cutForShare }: EndpointState,
  ws: WebSocket<SessionSocket>,
  socket: SessionSocket,
): void => {
  metrics.wsSessionsCut.child('address_share').value += 1;
  const { framesPerSecond, bytesPerSecond } = inboundShare.rates;
  cutForShare.lost(0, { address: socket.address, framesPerSecond, bytesPerSecond });
  const { code, reason } = CLOSE_CODES.inboundShareExceeded;
  ws.end(code, reason);
};

/** A closed socket: its address's place is given back, and the session hears of it unless it closed it. */
const closeHandler =
  (endpoint: EndpointState) =>
  (ws: WebSocket<SessionSocket>, code: number): void => {
    const socket = ws.getUserData();
    socket.open = false;
    endpoint.openSockets -= 1;
    endpoint.sendTimeout.closed(ws);
    if (socket.countedForAddress) endpoint.addresses.release(socket.address);
    if (socket.share !== undefined) endpoint.inboundShare.leave(socket.share, performance.now());
    socket.share = undefined;
    endpoint.metrics.wsSessionsClosed.child(String(code)).value += 1;
    if (!socket.endedBySession) report(socket, { type: 'ws.closed' });
    if (socket.session !== undefined) sessionLog(endpoint.log, socket).info({ code }, 'session closed');
    socket.session = undefined;
  };

const report = (socket: SessionSocket, event: SessionTransportEvent): void => {
  socket.session?.send(event);
};

const sessionLog = (log: Logger, socket: SessionSocket) => log.child({ sessionId: socket.sessionId });
