import assert from 'node:assert/strict';
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ChatRequestMsg, ConverseGoalMsg } from '../../src/ros/port/ros-messages.js';
import {
  defaultServiceName,
  type RosCallHandler,
  type RosCallTicket,
  type RosConverseHandler,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';
import { callFromObservable, converseFromObservable, type ConverseEmission } from './port-calls.js';

export const marbleScheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => {
    assert.deepStrictEqual(actual, expected);
  });

/**
 * A port whose calls are observables picked by the test: chat calls by the first audio byte
 * (`'1'`, `'2'`, …), Converse goals by `'converse:'` and the first audio byte (`'converse:1'`; parts and
 * a result, see converseFromObservable), other services by their key. Services are named as remapped in
 * `names`, else by their default names.
 */
export const scriptedPort = (
  script: Readonly<Record<string, Observable<unknown>>>,
  names: Readonly<Partial<Record<RosServiceKey, string>>> = {},
): Pick<RosPort, 'call' | 'converse' | 'serviceName'> => ({
  converse: (goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket => {
    const key = `converse:${String(goal.audio[0])}`;
    const goalScript = script[key];
    if (goalScript === undefined) throw new Error(`no scripted goal for ${key}`);
    return converseFromObservable(goalScript as Observable<ConverseEmission>, handler);
  },
  serviceName: (service) =>
    (service === 'converse' ? undefined : names[service]) ?? defaultServiceName(service),
  call: <K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket => {
    const key = service === 'chat' ? String((request as ChatRequestMsg).audio[0]) : service;
    const call = script[key];
    if (call === undefined) throw new Error(`no scripted call for ${key}`);
    return callFromObservable(call as Observable<RosResponse<K>>, handler);
  },
});
