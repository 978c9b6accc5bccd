import { Observable } from 'rxjs';
import {
  RosServiceUnavailableError,
  serviceNamesOf,
  type RosPort,
  type RosServiceNames,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros/ros-port.js';
import type { BridgeMetrics } from './bridge-metrics.js';

/**
 * The ROS port with every call counted and timed: one decorator instead of counters scattered over the
 * callers. A call unsubscribed before its answer (time-out, kiosk gone) counts as `abandoned`.
 */
export const instrumentPort = (port: RosPort, metrics: BridgeMetrics): RosPort & RosServiceNames => {
  // Label children bound once per service and outcome: a labelled inc() per call showed in the profile.
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(seconds: number): void }>();
  const count = (service: RosServiceKey, outcome: string) => {
    const key = `${service} ${outcome}`;
    let counter = counters.get(key);
    if (counter === undefined) {
      counter = metrics.rosCalls.labels({ service, outcome });
      counters.set(key, counter);
    }
    counter.inc();
  };
  const observe = (service: RosServiceKey, seconds: number) => {
    let timer = timers.get(service);
    if (timer === undefined) {
      timer = metrics.rosCallSeconds.labels({ service });
      timers.set(service, timer);
    }
    timer.observe(seconds);
  };
  return {
    backend: port.backend,
    description: port.description,
    // The names the wrapped port calls on the graph (remapped), which callers put in their errors.
    serviceName: serviceNamesOf(port),
    playAudio$: port.playAudio$,
    microphoneRequests$: port.microphoneRequests$,
    readiness: () => port.readiness(),
    close: () => port.close(),
    call: <K extends RosServiceKey>(service: K, request: RosRequest<K>): Observable<RosResponse<K>> =>
      new Observable<RosResponse<K>>((subscriber) => {
        const started = performance.now();
        let outcome: 'ok' | 'unavailable' | 'failed' | undefined;
        const subscription = port.call(service, request).subscribe({
          next: (response) => {
            if (outcome === undefined) {
              outcome = 'ok';
              observe(service, (performance.now() - started) / 1000);
            }
            subscriber.next(response);
          },
          error: (error: unknown) => {
            outcome = error instanceof RosServiceUnavailableError ? 'unavailable' : 'failed';
            subscriber.error(error);
          },
          complete: () => {
            subscriber.complete();
          },
        });
        return () => {
          subscription.unsubscribe();
          count(service, outcome ?? 'abandoned');
        };
      }),
  };
};
