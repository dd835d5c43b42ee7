import type { FailureKey } from '../memory/reminder.js';
import { redact } from '../safety/redact.js';
import { maskVariables } from '../templates/line-mask.js';
import { signatureText } from '../templates/signature.js';
import { errorLine } from '../telemetry/error-line.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import { isShellTool, toolFamily } from '../telemetry/tool-family.js';
import { templateScope } from './by-template.js';
import { failureCategory, toolNameCleaner } from './cluster.js';

/**
 * One failure's cluster key as the night computes it (ClusterBuilder.add, then clustersByTemplate): the
 * cleaned tool family (a shell call's failing program), the category, and the redacted, masked error
 * line the template miner matches. The day's hook uses it to find the rule a failure belongs to.
 */
export function failureKeyOf(event: TelemetryEvent): FailureKey {
  const clean = toolNameCleaner();
  const tool = clean(isShellTool(event.tool_name) ? toolFamily(event.tool_name, event.input_summary, event.error_message) : toolFamily(event.tool_name));
  const category = failureCategory(event);
  const masked = event.error_message ? maskVariables(redact(errorLine(event.error_message))) : '';
  return { tool, category, scope: templateScope(tool, category), line: masked ? signatureText(masked) : '' };
}
