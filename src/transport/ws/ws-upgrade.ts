/**
 * The `/ws` upgrade: the checks a request passes before it becomes a socket, and the state uWebSockets.js
 * keeps for each socket from then on.
 */
import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponse, us_socket_context_t } from 'uWebSockets.js';
import type { SessionActor } from '../../actors/session/session.js';
import type { Logger } from '../../log/logger.js';
import { createLossReporter } from '../../log/loss-reporter.js';
import { checkWebSocketAccess, webSocketRefusal, type AccessPolicy } from '../http/access-policy.js';
import { statusLine, type HttpReply } from '../http/reply.js';
import { HEAD_REFUSALS } from '../http/installed-route.js';
import { headProblem, requestQuery } from '../uws-build.js';
import { addressKey } from './address-key.js';
import { handshakeRefusal } from './handshake.js';
import { InboundBudget, type InboundRates, type InboundShare } from '../../actors/budgets.js';

/** What uWebSockets.js keeps per socket. `open` guards every write: a closed uWS socket must not be touched. */
export interface SessionSocket {
  readonly sessionId: string;
  /** The client's address key (address-key.ts: IPv6 by /64), as sessions are counted per address. */
  readonly address: string;
  /** The socket holds one of its address's places (it was not refused for its address). */
  countedForAddress: boolean;
  open: boolean;
  session: SessionActor | undefined;
  /** The session closed the socket itself: it is already on its way out and hears nothing more. */
  endedBySession: boolean;
  /** What the client may still send before it is closed for flooding. */
  readonly budget: InboundBudget;
  /** Its part of its address's tally in the process-wide budget, while it holds a session place. */
  share: InboundShare | undefined;
  /** The send time-out's ping still unanswered, when it was sent (send-timeout.ts). */
  pingedAt: number | undefined;
}

export interface UpgradeSettings {
  readonly policy: AccessPolicy;
  readonly log: Logger;
  /** Each socket's inbound budget. */
  readonly inboundRates: InboundRates;
}

/**
 * The upgrade: refused with an HTTP answer for a malformed head, a request the access policy refuses or
 * one that is not a WebSocket handshake; else upgraded with the socket's own state.
 */
export const upgradeHandler = ({ policy, log, inboundRates }: UpgradeSettings) => {
  // A client retrying with a bad token is refused many times a second: one line, then a count per 10 s.
  const refusedUpgrades = createLossReporter({
    log,
    message: 'WebSocket upgrades refused',
    countField: 'refused',
    withBytes: false,
  });
  return (res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void => {
    const head = headProblem(req);
    if (head !== undefined) {
      refuseUpgrade(res, HEAD_REFUSALS[head]);
      return;
    }
    const access = checkWebSocketAccess(policy, {
      origin: req.getHeader('origin'),
      protocols: req.getHeader('sec-websocket-protocol'),
      query: requestQuery(req),
      authorization: req.getHeader('authorization'),
      host: req.getHeader('host'),
    });
    if (!access.ok) {
      refusedUpgrades.lost(0, { status: access.status, reason: access.reason.slice(0, 200) });
      refuseUpgrade(res, webSocketRefusal(access));
      return;
    }
    const misshaken = handshakeRefusal({
      upgrade: req.getHeader('upgrade'),
      connection: req.getHeader('connection'),
      version: req.getHeader('sec-websocket-version'),
      key: req.getHeader('sec-websocket-key'),
    });
    if (misshaken !== undefined) {
      refusedUpgrades.lost(0, { status: misshaken.status, reason: 'not a WebSocket handshake' });
      refuseUpgrade(res, misshaken);
      return;
    }
    const socket: SessionSocket = {
      sessionId: randomUUID(),
      address: addressKey(Buffer.from(res.getRemoteAddressAsText()).toString()),
      countedForAddress: false,
      open: false,
      session: undefined,
      endedBySession: false,
      budget: new InboundBudget(inboundRates, performance.now()),
      share: undefined,
      pingedAt: undefined,
    };
    res.upgrade(
      socket,
      req.getHeader('sec-websocket-key'),
      // Only our own subprotocol is ever selected: a `bearer.<token>` entry is never echoed back.
      access.protocol ?? '',
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  };
};

const refuseUpgrade = (res: HttpResponse, reply: HttpReply): void => {
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.writeHeader(name, value);
    res.end(reply.body, true);
  });
};
