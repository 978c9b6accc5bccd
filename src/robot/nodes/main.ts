#!/usr/bin/env node
import type { Logger } from 'pino';
import { createLogger } from '../../log/logger.js';
import { openDurableTourStore, type DurableTourStore } from '../tours/durable-tour-store.js';
import { createConverseServer, serveConverseAction, type ConverseServer } from './converse-server.js';
import { DEMO_CHAT_NODE_NAME, serveDemoChat } from './demo-chat-node.js';
import { parseNodeCommandLine, type NodeOptions } from './node-options.js';
import { startRosNodeHost, type RosNodeHost } from './ros-node-host.js';
import { serveTourStore, TOUR_STORE_NODE_NAME } from './tour-store-node.js';
import { serveHistory } from './history-topics.js';
import { serveRecognition } from './recognition-topics.js';
import { REAL_CLOCK } from '../speech/stand-in-clock.js';
import type { StreamingRecogniser } from './streaming-recogniser.js';
import { ROS_ACTIONS } from '../../ros/port/ros-port.js';

/** On SIGINT/SIGTERM, longest wait for queued tour store writes before exiting anyway. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

const fail = (message: string, code: number): never => {
  process.stderr.write(`tour-bridge node: ${message}\n`);
  process.exit(code);
};

interface Running {
  readonly host: RosNodeHost;
  readonly store?: DurableTourStore;
  readonly converse?: ConverseServer;
  readonly recogniser?: StreamingRecogniser;
}

const runTourStore = async (options: NodeOptions, log: Logger, signal: AbortSignal): Promise<Running> => {
  const file = options.file ?? fail('tour-store needs --file', 2);
  // The store first: a bad file is reported before anything waits for the router.
  const { store, recovery } = await openDurableTourStore({ file, maxTours: options.maxTours });
  log.info(
    { file, ...recovery },
    `tour store opened with ${recovery.tours} tour(s) from ${recovery.source === 'file' ? file : 'the sample tour (no file yet)'}`,
  );
  const host = await startRosNodeHost({
    nodeName: TOUR_STORE_NODE_NAME,
    logger: log,
    rosArgs: options.rosArgs,
    signal,
  });
  serveTourStore({
    rcl: host.rcl,
    node: host.node,
    store,
    logger: log,
    isClosed: () => host.closing.aborted,
  });
  host.spin();
  log.info({ node: host.nodeName, rmw: host.rmw }, 'tour store serving the five tour services');
  return { host, store };
};

const runDemoChat = async (options: NodeOptions, log: Logger, signal: AbortSignal): Promise<Running> => {
  const host = await startRosNodeHost({
    nodeName: DEMO_CHAT_NODE_NAME,
    logger: log,
    rosArgs: options.rosArgs,
    signal,
  });
  const isClosed = () => host.closing.aborted;
  const recogniser = serveRecognition({
    rcl: host.rcl,
    node: host.node,
    logger: log,
    isClosed,
    rt: options.recognition.rt,
    clock: REAL_CLOCK,
  });
  const history = serveHistory({
    rcl: host.rcl,
    node: host.node,
    logger: log,
    isClosed,
    // As the action server resolves it (Jazzy's rcl_action does not remap action names).
    actionName: host.node.resolveTopicName(ROS_ACTIONS.converse.name),
  });
  const chat = serveDemoChat({
    rcl: host.rcl,
    node: host.node,
    logger: log,
    isClosed,
    recognitionRt: options.recognition.rt,
    clearHistory: () => {
      history.clear();
    },
  });
  const converse = createConverseServer(options.converse, log, isClosed, {
    recognition: options.recognition,
    utterances: recogniser,
    history,
  });
  const action = serveConverseAction(host.rcl, host.node, converse);
  host.spin();
  log.info(
    {
      node: host.nodeName,
      rmw: host.rmw,
      action,
      converse: options.converse,
      recognition: options.recognition,
    },
    'demo chat serving /chat, /clear_history and the Converse action, recognising /utterance/audio',
  );
  chat.greet(host.closing).catch((error: unknown) => {
    log.warn({ err: error }, 'the greeting failed');
  });
  return { host, converse, recogniser };
};

const main = async (): Promise<void> => {
  const parsed = parseNodeCommandLine(process.argv.slice(2), process.env);
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  if (parsed.kind === 'error') return fail(parsed.message, 2);
  const { options } = parsed;
  const log = createLogger(options.logLevel).child({ component: options.command });

  const starting = new AbortController();
  let running: Running | undefined;
  let stopping = false;
  const stop = (signalName: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal: signalName }, 'shutting down');
    starting.abort(new Error(`stopped by ${signalName}`));
    const deadline = setTimeout(() => {
      log.error({ timeoutMs: SHUTDOWN_TIMEOUT_MS }, 'queued writes did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    // Queued tour store requests finish (and their writes become durable) before the node goes.
    void (running?.store?.close() ?? Promise.resolve()).then(() => {
      running?.host.close();
      running?.converse?.close();
      running?.recogniser?.close();
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  try {
    running =
      options.command === 'tour-store'
        ? await runTourStore(options, log, starting.signal)
        : await runDemoChat(options, log, starting.signal);
  } catch (error) {
    if (starting.signal.aborted) return;
    log.fatal({ err: error }, 'the node failed to start');
    const message = error instanceof Error ? error.message : String(error);
    return fail(`${options.command} failed to start: ${message.split('\n', 1)[0] ?? ''}`, 1);
  }
};

void main();
