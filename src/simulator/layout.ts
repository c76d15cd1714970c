/**
 * Where every generated id comes from. Ids are computed, not drawn, so that reports can name
 * plans (including plans that no longer exist) before any plan object is built, and so that
 * ids stay unique across companies for any --plans / --reports count.
 */

const FIRST_COMPANY_ID = 5251;
/** The documented example report id (`.../scheduled/132?companyId=5251`). */
const FIRST_REPORT_ID = 132;
const PROJECTS_PER_COMPANY = 3;
/** Ids reserved after each company's plans and never listed: stand-ins for deleted plans. */
const DELETED_PLANS_PER_COMPANY = 10;
const FIRST_PLAN_ID = 1001;
const FIRST_APP_ID = 7001;
const APP_IDS_PER_COMPANY = 20;

export interface CompanyLayout {
  index: number;
  id: number;
  username: string;
  password: string;
  staticToken: string;
  projectIds: number[];
  /** First plan id; plan i of the company has id firstPlanId + i. */
  firstPlanId: number;
  planCount: number;
  /** Plan ids that no plan list returns (dangling targets for report plan_id_list). */
  deletedPlanIds: number[];
  reportIds: number[];
  firstAppId: number;
}

/** `secretTag` (alphanumeric, "" for none) ends the password and the static token. */
export function companyLayout(index: number, plans: number, reports: number, secretTag = ""): CompanyLayout {
  const id = FIRST_COMPANY_ID + index;
  const tag = secretTag === "" ? "" : `-${secretTag}`;
  const firstPlanId = FIRST_PLAN_ID + index * (plans + DELETED_PLANS_PER_COMPANY);
  return {
    index,
    id,
    username: `user${id}`,
    password: `pass-${id}${tag}`,
    staticToken: `sim-token-${id}${tag}`,
    projectIds: Array.from({ length: PROJECTS_PER_COMPANY }, (_, p) => id * 10 + p + 1),
    firstPlanId,
    planCount: plans,
    deletedPlanIds: Array.from({ length: DELETED_PLANS_PER_COMPANY }, (_, d) => firstPlanId + plans + d),
    reportIds: Array.from({ length: reports }, (_, r) => FIRST_REPORT_ID + index * reports + r),
    firstAppId: FIRST_APP_ID + index * APP_IDS_PER_COMPANY,
  };
}
