import { MAX_MESSAGE_ID, type MessageId } from './ws-protocol.js';

/**
 * Hands out message ids. The process holds one allocator shared by chat answers and /play_audio
 * messages, so an id is unique across every session at a time and ids increase in the order frames are built.
 */
export interface MessageIdAllocator {
  next(): MessageId;
}

/** Ids start at `first` and wrap from 2^32 − 1 to 0, matching the unsigned 32-bit header. */
export const createMessageIdAllocator = (first: MessageId = 0): MessageIdAllocator => {
  if (!Number.isInteger(first) || first < 0 || first > MAX_MESSAGE_ID) {
    throw new RangeError(`first message id ${first} is not an unsigned 32-bit integer`);
  }
  let upcoming = first;
  return {
    next: () => {
      const id = upcoming;
      upcoming = id === MAX_MESSAGE_ID ? 0 : id + 1;
      return id;
    },
  };
};
