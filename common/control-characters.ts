// C0 control characters and DEL: nobody types them into a name, a secret or a
// header prefix, so their presence means a stray line break from a file, a
// paste or a broken client. One definition for every door that refuses them.

// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's purpose
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** True when `text` contains a C0 control character or DEL. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}
