/**
 * SARIF 2.1.0 (OASIS), the format code-scanning services read (GitHub code scanning, VS Code's SARIF viewer), from
 * plain findings: one run, one rule per distinct `ruleId`, a result per finding with its region and, when the
 * finding has a replacement text, a `fix`. Columns are code points (`columnKind: unicodeCodePoints`), as every
 * position in this project. Validated in the tests against the official 2.1.0 JSON Schema.
 */

export const SARIF_SCHEMA_URI =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface SarifFinding {
  /** An error type or lint code, e.g. 'SandboxError' or 'never-fires/key-error'. */
  readonly ruleId: string;
  readonly level: 'error' | 'warning' | 'note';
  readonly message: string;
  readonly file: string;
  /** 1-based; columns in code points, `endCol` exclusive. */
  readonly line: number;
  readonly col: number;
  readonly endLine?: number;
  readonly endCol?: number;
  /** Replacement text for the region, when there is a suggested fix. */
  readonly fix?: { readonly description: string; readonly replacement: string } | null;
}

export interface SarifTool {
  readonly name: string;
  readonly version: string;
  readonly informationUri?: string;
}

export function sarifLog(tool: SarifTool, findings: readonly SarifFinding[]): object {
  const rules = Array.from(new Set(findings.map((f) => f.ruleId)));
  const region = (f: SarifFinding) => ({
    startLine: f.line,
    startColumn: f.col,
    ...(f.endLine !== undefined ? { endLine: f.endLine } : {}),
    ...(f.endCol !== undefined ? { endColumn: f.endCol } : {}),
  });
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            ...(tool.informationUri ? { informationUri: tool.informationUri } : {}),
            rules: rules.map((id) => ({ id })),
          },
        },
        columnKind: 'unicodeCodePoints',
        results: findings.map((f) => ({
          ruleId: f.ruleId,
          ruleIndex: rules.indexOf(f.ruleId),
          level: f.level,
          message: { text: f.message },
          locations: [{ physicalLocation: { artifactLocation: { uri: fileUri(f.file) }, region: region(f) } }],
          ...(f.fix
            ? {
                fixes: [
                  {
                    description: { text: f.fix.description },
                    artifactChanges: [
                      {
                        artifactLocation: { uri: fileUri(f.file) },
                        replacements: [{ deletedRegion: region(f), insertedContent: { text: f.fix.replacement } }],
                      },
                    ],
                  },
                ],
              }
            : {}),
        })),
      },
    ],
  };
}

/** A relative (or absolute) path as the URI reference SARIF wants: '/' separators, reserved characters escaped. */
function fileUri(path: string): string {
  return path.replace(/\\/g, '/').split('/').map(encodeURIComponent).join('/');
}
