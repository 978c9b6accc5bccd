/**
 * An init script that gives a page the audio policy of a browser without an autoplay exemption, as
 * Chromium applies it: a new AudioContext starts suspended, and resume() takes effect only once the page
 * has had a user activation (a press). Headless Chromium lets audio start without a gesture whatever its
 * --autoplay-policy, so the tests of the kiosk's "Tap anywhere to start" install this before it loads.
 */
export const AUDIO_NEEDS_A_GESTURE = `(() => {
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(...args) {
      super(...args);
      void super.suspend();
    }
    resume() {
      return navigator.userActivation.hasBeenActive ? super.resume() : Promise.resolve();
    }
  };
})()`;
