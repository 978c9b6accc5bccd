// The official line's binaries (20.57) have the fragment calls that the republished package's type file
// leaves out; upstream declares them the same way. ws-endpoint.ts writes large binary messages with them.
import 'uWebSockets.js';

declare module 'uWebSockets.js' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the name of the declaration it merges into
  interface WebSocket<UserData> {
    /** Sends the first frame of a fragmented message; returns the send status, as `send` does. */
    sendFirstFragment(message: RecognizedString, isBinary?: boolean, compress?: boolean): number;
    /** Sends a middle frame of a fragmented message. */
    sendFragment(message: RecognizedString, compress?: boolean): number;
    /** Sends the last frame of a fragmented message. */
    sendLastFragment(message: RecognizedString, compress?: boolean): number;
  }
}
