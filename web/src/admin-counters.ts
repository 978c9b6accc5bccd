import { element } from './dom.js';
import { counterText, tooLongMessage } from './tour-model.js';

/**
 * Character counters under the limited fields of the operator page. Nothing cuts text at a limit: past
 * it the counter says by how much, the field is marked invalid with the reason, and saving is refused
 * until it is shortened.
 */

/** The counter paragraph of a control; its id is `<control id>-count` (name it in aria-describedby). */
export const counterFor = (controlId: string): HTMLParagraphElement =>
  element('p', { id: `${controlId}-count`, class: 'counter' });

/**
 * After an edit: the control's counter is brought up to date, and its error is the over-limit one or
 * none (any earlier error, from a refused save or the API, was about text that is gone).
 */
export const refreshField = (control: HTMLInputElement | HTMLTextAreaElement, max: number): void => {
  const { text, over } = counterText(control.value, max);
  const counter = document.getElementById(`${control.id}-count`);
  if (counter !== null) {
    counter.textContent = text;
    counter.classList.toggle('counter--over', over);
  }
  const error = document.getElementById(`${control.id}-error`);
  if (over) {
    control.setAttribute('aria-invalid', 'true');
    if (error !== null) error.textContent = tooLongMessage(control.value, max);
  } else {
    control.removeAttribute('aria-invalid');
    if (error !== null) error.textContent = '';
  }
};
