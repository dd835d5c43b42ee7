/** The part of @ericcornelissen/bash-parser we use (the package ships no types). */
declare module '@ericcornelissen/bash-parser' {
  export interface BashNode {
    type: string;
    text?: string;
    [key: string]: unknown;
  }
  export default function parse(source: string, options?: { mode?: 'posix' | 'bash'; insertLOC?: boolean }): BashNode;
}
