/**
 * A running count of the characters recovery's scanners have read (JSON reads, repairs, literal reads), across
 * every extraction in this process. Tests take the difference around one extraction to prove the work stays
 * proportional to the text on adversarial inputs; wall time would only measure the machine.
 */
export const recoveryWork = { characters: 0 };
