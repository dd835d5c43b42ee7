// The log-parsing accuracy metrics of `npm run eval`, as the papers define them (pure functions).
//
// GA  (grouping accuracy, Zhu et al., ICSE-SEIP'19 "Tools and Benchmarks for Automated Log Parsing"):
//     the share of messages whose predicted group holds exactly the messages of their true group.
// FGA (F1 of grouping accuracy, Khan et al., ICSE'22 "Guidelines for Assessing the Accuracy of Log Message
//     Template Identification Techniques"): a true group is correctly identified when one predicted group
//     holds exactly its messages; precision = correct / predicted groups, recall = correct / true groups.
// PA  (parsing accuracy, Khan et al.): the share of messages whose predicted template equals the true
//     template, both normalised by `normaliseTemplate` (whitespace runs and runs of `<*>` collapsed).

/**
 * GA and FGA of a predicted grouping against the truth. `truth[i]` and `predicted[i]` are group labels
 * (any strings) of message i.
 * @param {readonly string[]} truth
 * @param {readonly string[]} predicted
 * @returns {{ ga: number, fga: number, truthGroups: number, predictedGroups: number }}
 */
export function groupingAccuracy(truth, predicted) {
  if (truth.length !== predicted.length) throw new Error(`truth has ${truth.length} labels, predicted ${predicted.length}`);
  const predictedSize = countBy(predicted);
  const byTruth = new Map();
  truth.forEach((label, i) => {
    const members = byTruth.get(label);
    if (members) members.push(i);
    else byTruth.set(label, [i]);
  });
  let correctMessages = 0;
  let correctGroups = 0;
  for (const members of byTruth.values()) {
    const first = predicted[members[0]];
    const same = members.every((i) => predicted[i] === first);
    if (same && predictedSize.get(first) === members.length) {
      correctMessages += members.length;
      correctGroups += 1;
    }
  }
  const precision = predictedSize.size === 0 ? 0 : correctGroups / predictedSize.size;
  const recall = byTruth.size === 0 ? 0 : correctGroups / byTruth.size;
  return {
    ga: truth.length === 0 ? 0 : correctMessages / truth.length,
    fga: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    truthGroups: byTruth.size,
    predictedGroups: predictedSize.size,
  };
}

/**
 * PA: the share of messages whose normalised predicted template equals the normalised true one.
 * @param {readonly string[]} truth
 * @param {readonly string[]} predicted
 */
export function parsingAccuracy(truth, predicted) {
  if (truth.length === 0) return 0;
  let correct = 0;
  for (let i = 0; i < truth.length; i++) if (normaliseTemplate(truth[i]) === normaliseTemplate(predicted[i])) correct += 1;
  return correct / truth.length;
}

/**
 * A template as PA compares it: whitespace runs become one space, and a run of wildcards (`<*><*>`,
 * `<*> <*>`) one `<*>`, since how many tokens a variable spans is not what a parser is judged on.
 * @param {string} template
 */
export function normaliseTemplate(template) {
  return template.trim().replace(/\s+/g, ' ').replace(/<\*>(?:\s*<\*>)+/g, '<*>');
}

function countBy(labels) {
  const counts = new Map();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return counts;
}
