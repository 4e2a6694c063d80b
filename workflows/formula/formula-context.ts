// The object every SmartFormula is evaluated against and every SmartField
// path starts from. Built once per execution by the workflow; steps add to
// Variables and Steps as they run.

export interface FormulaContext {
  Trigger: {
    /** The parsed webhook body, so `Trigger.Payload.order.id` is a member path. */
    Payload: unknown;
    /** The body exactly as received; `{{Trigger.Payload}}` inserts this text. */
    PayloadJson: string;
    Activity: string;
    Description: string;
  };
  Variables: Record<string, unknown>;
  Steps: Record<string, unknown>;
  Execution: { Id: string; StartedAt: string };
  Company: { Name: string };
}
