// The one command that repairs a lost or missing flow secret, spelled exactly
// as the user can paste it. Every message that leaves a published flow
// without a shown secret ends with it.
import { shellArg } from '../../../common/shell-words.ts';

export function secretRotateCommand(company: string, activity: string): string {
  return `flowhook secret rotate ${shellArg(company)} ${shellArg(activity || '<activity>')}`;
}
