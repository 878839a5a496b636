/**
 * Every operation by its tool name, with its input schema: the WebSocket protocol's `action`s and the REST route
 * `POST /tools/<name>` run through this table, so they accept exactly what the MCP tools accept.
 */
import type { Static, TObject } from "@sinclair/typebox";
import * as model from "./model.ts";
import type { BrowserService, CallContext } from "./service.ts";

interface Action<I extends TObject = TObject> {
  input: I;
  /** Long actions report progress and are the ones a client streams. */
  long?: boolean;
  run(browser: BrowserService, args: Static<I>, context: CallContext): Promise<unknown>;
}

const action = <I extends TObject>(spec: Action<I>): Action => spec as unknown as Action;

export const actions: Record<string, Action> = {
  test_browser_connectivity: action({ input: model.ConnectivityInput, run: (b, a, c) => b.connectivity(a, c) }),
  navigate_to_url: action({ input: model.NavigateInput, run: (b, a, c) => b.navigate(a, c) }),
  take_page_screenshot: action({ input: model.ScreenshotInput, run: async (b, a, c) => (await b.screenshot(a, c)).result }),
  fill_login_form: action({ input: model.LoginInput, run: (b, a, c) => b.login(a, c) }),
  snapshot_page: action({ input: model.SnapshotInput, run: (b, a, c) => b.snapshot(a, c) }),
  click: action({ input: model.ClickInput, run: (b, a, c) => b.click(a, c) }),
  type_text: action({ input: model.TypeInput, run: (b, a, c) => b.type(a, c) }),
  press_key: action({ input: model.PressKeyInput, run: (b, a, c) => b.pressKey(a, c) }),
  select_option: action({ input: model.SelectInput, run: (b, a, c) => b.selectOption(a, c) }),
  hover: action({ input: model.HoverInput, run: (b, a, c) => b.hover(a, c) }),
  wait_for: action({ input: model.WaitForInput, run: (b, a, c) => b.waitFor(a, c) }),
  manage_tabs: action({ input: model.TabsInput, run: (b, a, c) => b.tabs(a, c) }),
  go_back: action({ input: model.HistoryInput, run: (b, a, c) => b.back(a, c) }),
  go_forward: action({ input: model.HistoryInput, run: (b, a, c) => b.forward(a, c) }),
  console_messages: action({ input: model.ConsoleInput, run: (b, a, c) => b.consoleMessages(a, c) }),
  network_requests: action({ input: model.NetworkInput, run: (b, a, c) => b.networkRequests(a, c) }),
  close_session: action({ input: model.CloseSessionInput, run: (b, a, c) => b.closeSession(a, c) }),
  start_trace: action({ input: model.TraceStartInput, run: (b, a, c) => b.traceStart(a, c) }),
  stop_trace: action({ input: model.TraceStopInput, run: (b, a, c) => b.traceStop(a, c) }),
  run_exploratory_test: action({ input: model.ExploratoryInput, long: true, run: (b, a, c) => b.exploratory(a, c) }),
  run_accessibility_test: action({ input: model.AccessibilityInput, long: true, run: (b, a, c) => b.accessibility(a, c) }),
  run_responsive_test: action({ input: model.ResponsiveInput, long: true, run: (b, a, c) => b.responsive(a, c) }),
  run_security_test: action({ input: model.SecurityInput, long: true, run: (b, a, c) => b.security(a, c) }),
  run_playbook: action({ input: model.PlaybookInput, long: true, run: (b, a, c) => b.playbook(a, c) }),
};
