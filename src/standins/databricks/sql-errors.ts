/** SQL failures as Databricks reports them: HTTP 200, `status.state = FAILED`, an error class in the message. */

export interface SqlFailure {
  error_code: string;
  message: string;
  sql_state: string;
}

export function sqlFailure(errorClass: string, sqlState: string, text: string, errorCode = 'BAD_REQUEST'): SqlFailure {
  return { error_code: errorCode, message: `[${errorClass}] ${text} SQLSTATE: ${sqlState}`, sql_state: sqlState };
}

export function tableNotFound(name: string): SqlFailure {
  const quoted = name.split('.').map((part) => `\`${part}\``).join('.');
  return sqlFailure(
    'TABLE_OR_VIEW_NOT_FOUND',
    '42P01',
    `The table or view ${quoted} cannot be found. Verify the spelling and correctness of the schema and catalog.`,
  );
}
