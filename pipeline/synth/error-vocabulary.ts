/**
 * The words an error clause may use (error-clause.ts), as an allowlist: what errors say about a failed
 * call — nouns for what failed, states, negations, quantities. Left out on purpose, so that a clause
 * using them is not quoted: imperatives and advice (run, use, try, delete, skip), modals, necessity and
 * permission claims (must, should, needs, required, optional, only, accepts, works), conditions (if,
 * unless, except, but, when), judgements about other text (outdated, obsolete, stale, wrong, earlier,
 * previous), words that address a reader or a model (you, please, memory, rules, instructions, notes),
 * and every other language. A real error that needs a word from those lists loses its quote, not its
 * rule: the known-failure advice and the template id still say which failure it is.
 */
const words = (text: string): ReadonlySet<string> => new Set(text.trim().split(/\s+/));

export const ERROR_VOCABULARY: ReadonlySet<string> = words(`
  a an the of in on at to for from with by into as via per over under than
  is are was were be been has have had do does did it its this that these those there here such yet
  main master pathspec known manifest listen publickey config did could
  errno assignable mcp glob npm yarn pnpm node python pip git cargo make tsc pytest getaddrinfo requested
  not no none nothing never cannot can't couldn't doesn't don't isn't aren't wasn't weren't won't didn't hasn't haven't
  hadn't shouldn't wouldn't
  and or nor
  error errors fatal warning warnings failure failures failed fails fail exception exceptions traceback abort aborted
  panic panicked crashed crash fault segmentation core dumped killed terminated interrupted exited exit signal
  file files directory directories folder path paths name names named type types value values key keys argument
  arguments arg args parameter parameters param option options field fields property properties attribute attributes
  object objects class classes function functions method methods module modules package packages library libraries
  version versions command commands program process processes tool tools script scripts line lines column columns
  position offset index string strings number numbers integer int float boolean bool list array dict dictionary map
  set tuple expression statement syntax token tokens character characters char byte bytes block blocks indent
  indentation indented input output stream buffer data record records entry entries item items element elements
  node nodes resource resources request requests response responses status code codes message messages header
  headers body content contents size length limit maximum minimum max min range format encoding schema table tables
  row rows database query transaction connection connections socket port address host server client remote branch
  branches ref refs reference references commit commits tag tags repository merge conflict conflicts head index lock
  locked tree working copy patch hunk stash submodule upstream origin
  exist exists existing found missing unknown unexpected undefined unresolved unrecognized unsupported invalid illegal
  empty full busy closed open opened denied refused rejected expired timed timeout out exceeded exceeds exceeding
  too large long many few short small big deep nested already same different duplicate ambiguous match matches
  matching mismatch matched mismatched unmatched unterminated unclosed unbalanced malformed corrupt corrupted
  broken bad unreadable unreachable unavailable unable unauthorized forbidden authentication
  credentials credential permission permissions access operation operations allowed permitted supported accepted
  expected got received given equal equality deeply identical be defined declared declare explicit explicitly
  implicit application applications app installed configured improperly properly configuration settings setting
  environment variable variables connect connected connecting during current working available
  some all any every each one two three more less greater fewer least most zero
  regex pattern look around ahead behind including parse parsing parser compile compiled compiling compilation
  build building built test tests suite assertion assert asserts
  migration migrations label labels dataset pixel codepoint docstring target targets py
  readable writable executable
  http https json yaml xml html css url uri api ssl tls dns tcp udp ip eof oom cli sdk id ids ok
  task tasks job jobs step steps stage stages agent agent's session sessions user group owner mode
  network local global default custom internal external
  called calling call calls returned returns return raised raise thrown throw
  reached reading writing loading importing resolving fetching pushing pulling creating opening running executing
  read-only readonly
  integer-like non-zero nonzero null nil undefined NaN infinity negative positive
  handler handlers hook hooks plugin plugins extension extensions dependency dependencies peer
  image images container containers volume volumes service services endpoint endpoints
  certificate certificates key-value
  ms sec secs seconds second minutes minute hours
  lines bytes tokens chars
  non-fast-forward fast-forward fetch-first
  universal details identifier identifiers tool's operational improperly
`);

/** Words after which an action verb is a report of what failed ("failed to remove"), not an order. */
export const FAILURE_LEAD: ReadonlySet<string> = words(`
  failed unable cannot can't couldn't could not didn't won't refusing refused while when trying attempting
`);

/** Action verbs an error states as what failed: quoted only right after a FAILURE_LEAD word (and "to"). */
export const FAILED_ACTIONS: ReadonlySet<string> = words(`
  remove create open read write push pull fetch delete connect resolve find load parse import install compile run
  execute start lock access convert acquire get set stat rename copy move merge apply checkout clone commit update
  download upload bind listen spawn allocate decode encode initialize mount send receive authenticate verify close
  unlink mkdir rmdir chdir replace
`);

/** Deciding whether a clause states an error at all (besides an error head such as `error:`). */
export const ERROR_MARKERS: ReadonlySet<string> = words(`
  error errors fatal failed fails failure not no cannot can't couldn't doesn't isn't unable invalid illegal denied
  refused rejected missing unknown unexpected undefined unresolved unrecognized unsupported exceeded exceeds timeout
  timed exists expected conflict conflicts abort aborted panic crashed fault killed terminated forbidden unauthorized
  mismatch malformed corrupt corrupted broken unreachable unavailable empty ambiguous duplicate unterminated unclosed
  unmatched
`);

/**
 * Parts of a code name (snake_case, dotted, CamelCase) that spell an instruction: such a name is not
 * quoted (`ignore_previous_instructions`, `ForcePush`). Code names are otherwise not judged word by word.
 */
export const IDENTIFIER_DENY: ReadonlySet<string> = words(`
  ignore ignored disregard forget override bypass instruction instructions prompt prompts rule rules memory remember
  llm ai assistant model agents jailbreak system dan
  rm rf force forced push delete remove wipe erase purge destroy nuke reset hard clean skip disable disabled sudo chmod
  curl wget eval exec execute run install publish approve merge admin token secret password credentials exfiltrate
  upload paste send outdated obsolete stale deprecated always never must should only
`);
