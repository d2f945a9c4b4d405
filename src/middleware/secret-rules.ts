/**
 * The credential formats the built-in detectors know, as data. Each token rule is derived from a
 * rule of a well-kept secret scanner: secretlint's recommended preset
 * (`@secretlint/secretlint-rule-preset-recommend`) where it covers a format, gitleaks' default
 * rules otherwise. `source` names the rule; test/middleware/secret-rules-secretlint.test.ts runs
 * secretlint itself over the labelled corpus and fails when it finds a secret these rules miss,
 * so the two cannot drift apart unnoticed. Differences on purpose: lengths have no upper bound (a
 * longer token is still a token), the documented example keys are not exempt (what reads as a
 * key is treated as one), secretlint's AWS access key id scan, off by default there, is on, and
 * gitleaks rules that also ask for the service's name nearby (`mailgun`, `dropbox`) are taken for
 * their token format alone, which is distinctive enough. A few formats neither covers by prefix
 * are ours (`source: "agent-onion: …"`).
 */

/** A credential recognised by its literal prefix. */
export interface TokenRule {
  /** Rule id, as the rule set it comes from names it. */
  readonly id: string;
  /** `secretlint:<rule package>`, `gitleaks:<rule id>`, or `agent-onion: <why>` for a format neither covers by its prefix. */
  readonly source: string;
  /** Literal prefixes a token of this format starts with (case-sensitive). */
  readonly prefixes: readonly string[];
  /** The whole token from its prefix on, as a regular expression source (matched where a prefix is, up to the end of the token). */
  readonly token: string;
}

/** Characters that continue a token: a match must not stop before one of them. */
export const tokenTail = "(?![A-Za-z0-9_-])";

/**
 * Token rules, most specific first (the first rule whose pattern matches at a position wins).
 *
 * @example
 * tokenRules.find((r) => r.id === "github-pat")?.prefixes // ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]
 */
export const tokenRules: readonly TokenRule[] = [
  // secretlint's recommended preset.
  {
    id: "aws-access-key-id",
    source: "secretlint:@secretlint/secretlint-rule-aws",
    prefixes: ["A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA", "ABIA", "ACCA"],
    token: "(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
  },
  {
    id: "npm-access-token",
    source: "secretlint:@secretlint/secretlint-rule-npm",
    prefixes: ["npm_"],
    token: "npm_[A-Za-z0-9_]{36,}(?![A-Za-z0-9_])",
  },
  {
    id: "slack-token",
    source: "secretlint:@secretlint/secretlint-rule-slack",
    prefixes: ["xoxb-", "xoxp-", "xapp-", "xoxa-", "xoxo-", "xoxr-", "xoxs-", "xoxe-", "xoxe."],
    token: "x(?:ox[bpaorse]|app)[-.](?:\\d-)?(?:[A-Za-z0-9]{1,}-)*[A-Za-z0-9]{6,}(?![A-Za-z0-9-])",
  },
  {
    id: "sendgrid-api-key",
    source: "secretlint:@secretlint/secretlint-rule-sendgrid",
    prefixes: ["SG."],
    token: "SG\\.[\\w-]{16,}\\.[\\w-]{16,}(?![\\w-])",
  },
  {
    id: "shopify-token",
    source: "secretlint:@secretlint/secretlint-rule-shopify",
    prefixes: ["shppa_", "shpca_", "shpat_", "shpss_"],
    token: "shp(?:pa|ca|at|ss)_[A-Za-z0-9]{32,}(?![A-Za-z0-9])",
  },
  {
    id: "stripe-secret-key",
    source: "secretlint:@secretlint/secretlint-rule-stripe",
    // gitleaks' stripe-access-token adds the `_prod_` keys.
    prefixes: ["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"],
    token: "[rs]k_(?:live|test|prod)_[A-Za-z0-9]{16,}(?![A-Za-z0-9])",
  },
  {
    id: "github-app-installation-token",
    source: "secretlint:@secretlint/secretlint-rule-github",
    prefixes: ["ghs_"],
    token: "ghs_\\d{1,20}_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+" + tokenTail,
  },
  {
    id: "github-pat",
    source: "secretlint:@secretlint/secretlint-rule-github",
    prefixes: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    token: "gh[pousr]_[A-Za-z0-9_]{36,}(?![A-Za-z0-9_])",
  },
  {
    id: "github-fine-grained-pat",
    source: "secretlint:@secretlint/secretlint-rule-github",
    prefixes: ["github_pat_"],
    token: "github_pat_[A-Za-z0-9_]{22,}(?![A-Za-z0-9_])",
  },
  {
    id: "gitlab-token",
    source: "secretlint:@secretlint/secretlint-rule-gitlab",
    // With gitleaks' feature flag client tokens (`glffct-`).
    prefixes: ["glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glft-", "glffct-", "glimt-", "glagent-", "glsoat-", "gloas-"],
    token: "gl(?:pat|ptt|dt|rt|cbt|ft|ffct|imt|agent|soat|oas)-[A-Za-z0-9_-]{20,}" + tokenTail,
  },
  {
    id: "grafana-cloud-token",
    source: "secretlint:@secretlint/secretlint-rule-grafana",
    prefixes: ["glc_"],
    token: "glc_[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/=])",
  },
  {
    id: "grafana-service-account-token",
    source: "secretlint:@secretlint/secretlint-rule-grafana",
    prefixes: ["glsa_"],
    token: "glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])",
  },
  // OpenAI (`sk-proj-`, `sk-svcacct-`, `sk-admin-`, legacy `sk-`) and Anthropic (`sk-ant-api03-`, `sk-ant-admin01-`): one prefix.
  {
    id: "openai-anthropic-api-key",
    source: "secretlint:@secretlint/secretlint-rule-openai",
    prefixes: ["sk-"],
    token: "sk-[A-Za-z0-9_-]{20,}" + tokenTail,
  },
  {
    id: "groq-api-key",
    source: "secretlint:@secretlint/secretlint-rule-groq",
    prefixes: ["gsk_"],
    token: "gsk_[A-Za-z0-9]{40,}(?![A-Za-z0-9])",
  },
  {
    id: "huggingface-token",
    source: "secretlint:@secretlint/secretlint-rule-huggingface",
    prefixes: ["hf_"],
    token: "hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])",
  },
  {
    id: "linear-api-key",
    source: "secretlint:@secretlint/secretlint-rule-linear",
    prefixes: ["lin_api_"],
    token: "lin_api_[A-Za-z0-9_]{32,}(?![A-Za-z0-9_])",
  },
  {
    id: "notion-token",
    source: "secretlint:@secretlint/secretlint-rule-notion",
    prefixes: ["ntn_"],
    token: "ntn_[0-9]{11}[A-Za-z0-9]{35,}(?![A-Za-z0-9])",
  },
  {
    id: "1password-service-account-token",
    source: "secretlint:@secretlint/secretlint-rule-1password",
    prefixes: ["ops_"],
    token: "ops_ey[A-Za-z0-9+/]{64,}={0,3}(?![A-Za-z0-9+/=])",
  },
  {
    id: "hashicorp-vault-token",
    source: "secretlint:@secretlint/secretlint-rule-hashicorp-vault",
    prefixes: ["hvs.", "hvb.", "hvr."],
    token: "hv[sbr]\\.[A-Za-z0-9_-]{24,}" + tokenTail,
  },
  {
    id: "vercel-token",
    source: "secretlint:@secretlint/secretlint-rule-vercel",
    prefixes: ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
    token: "vc[pcikar]_[A-Za-z0-9]{20,}(?![A-Za-z0-9])",
  },
  {
    id: "databricks-token",
    source: "secretlint:@secretlint/secretlint-rule-databricks",
    prefixes: ["dapi"],
    token: "dapi[A-Fa-f0-9]{32}(?:-\\d)?(?![A-Za-z0-9])",
  },
  {
    id: "docker-pat",
    source: "secretlint:@secretlint/secretlint-rule-docker",
    prefixes: ["dckr_pat_"],
    token: "dckr_pat_[A-Za-z0-9_-]{27,}" + tokenTail,
  },
  {
    id: "figma-token",
    source: "secretlint:@secretlint/secretlint-rule-figma",
    prefixes: ["figd_"],
    token: "figd_[A-Za-z0-9_-]{40,}" + tokenTail,
  },
  {
    id: "cloudflare-token",
    source: "secretlint:@secretlint/secretlint-rule-cloudflare",
    prefixes: ["cfk_", "cfut_", "cfat_"],
    token: "(?:cfk|cfut|cfat)_[A-Za-z0-9]{40,}(?![A-Za-z0-9])",
  },
  {
    id: "tailscale-key",
    source: "secretlint:@secretlint/secretlint-rule-tailscale",
    prefixes: ["tskey-"],
    token: "tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,}-[0-9A-Za-z_]{16,}(?![0-9A-Za-z_])",
  },
  // gitleaks' default rules, for formats the preset does not cover.
  { id: "gcp-api-key", source: "gitleaks:gcp-api-key", prefixes: ["AIza"], token: "AIza[A-Za-z0-9_-]{35,}" + tokenTail },
  {
    id: "jwt",
    source: "gitleaks:jwt",
    prefixes: ["eyJ"],
    // An unsigned token (`"alg": "none"`) ends at its second dot: still a credential wherever it is accepted.
    token: "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*",
  },
  {
    id: "digitalocean-token",
    source: "gitleaks:digitalocean-pat",
    prefixes: ["dop_v1_", "doo_v1_", "dor_v1_"],
    token: "do[por]_v1_[a-f0-9]{64}(?![A-Za-z0-9])",
  },
  {
    id: "pypi-upload-token",
    source: "gitleaks:pypi-upload-token",
    prefixes: ["pypi-AgEIcHlwaS5vcmc"],
    token: "pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}" + tokenTail,
  },
  {
    id: "postman-api-token",
    source: "gitleaks:postman-api-token",
    prefixes: ["PMAK-"],
    token: "PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}(?![A-Za-z0-9])",
  },
  {
    id: "atlassian-api-token",
    source: "gitleaks:atlassian-api-token",
    prefixes: ["ATATT3"],
    token: "ATATT3[A-Za-z0-9_=-]{40,}" + tokenTail,
  },
  {
    id: "sentry-token",
    source: "gitleaks:sentry-org-token",
    prefixes: ["sntrys_", "sntryu_"],
    token: "sntry[su]_[A-Za-z0-9+/=_-]{40,}" + tokenTail,
  },
  { id: "heroku-api-key", source: "gitleaks:heroku-api-key-v2", prefixes: ["HRKU-"], token: "HRKU-AA[A-Za-z0-9_-]{58,}" + tokenTail },
  {
    id: "new-relic-key",
    source: "gitleaks:new-relic-user-api-key",
    prefixes: ["NRAK-", "NRJS-", "NRII-"],
    token: "NR(?:AK|JS|II)-[A-Za-z0-9]{19,}(?![A-Za-z0-9])",
  },
  {
    id: "age-secret-key",
    source: "gitleaks:age-secret-key",
    prefixes: ["AGE-SECRET-KEY-1"],
    token: "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Za-z0-9])",
  },
  { id: "twilio-api-key", source: "gitleaks:twilio-api-key", prefixes: ["SK"], token: "SK[0-9a-fA-F]{32}(?![A-Za-z0-9])" },
  {
    id: "square-token",
    source: "gitleaks:square-access-token",
    prefixes: ["sq0atp-", "sq0csp-", "EAAA"],
    token: "(?:sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60,}" + tokenTail,
  },
  {
    id: "shippo-api-token",
    source: "gitleaks:shippo-api-token",
    prefixes: ["shippo_live_", "shippo_test_"],
    token: "shippo_(?:live|test)_[a-fA-F0-9]{40}(?![A-Za-z0-9])",
  },
  { id: "pulumi-api-token", source: "gitleaks:pulumi-api-token", prefixes: ["pul-"], token: "pul-[a-f0-9]{40}(?![A-Za-z0-9])" },
  {
    id: "planetscale-token",
    source: "gitleaks:planetscale-api-token",
    prefixes: ["pscale_tkn_", "pscale_pw_", "pscale_oauth_"],
    token: "pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._-]{32,}" + tokenTail,
  },
  {
    id: "rubygems-api-token",
    source: "gitleaks:rubygems-api-token",
    prefixes: ["rubygems_"],
    token: "rubygems_[a-f0-9]{48}(?![A-Za-z0-9])",
  },
  {
    id: "doppler-api-token",
    source: "gitleaks:doppler-api-token",
    prefixes: ["dp.pt."],
    token: "dp\\.pt\\.[A-Za-z0-9]{43,}(?![A-Za-z0-9])",
  },
  {
    id: "flyio-token",
    source: "gitleaks:flyio-access-token",
    prefixes: ["fo1_", "fm1r_", "fm2_"],
    token: "(?:fo1_[\\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})" + tokenTail,
  },
  {
    id: "slack-webhook-url",
    source: "secretlint:@secretlint/secretlint-rule-slack",
    prefixes: ["hooks.slack.com/"],
    token: "hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{10,}",
  },
  {
    id: "twitter-bearer-token",
    source: "gitleaks:twitter-bearer-token",
    prefixes: ["AAAAAAAAAAAAAAAAAAAAA"],
    token: "A{22}[A-Za-z0-9%]{80,}(?![A-Za-z0-9%])",
  },
  {
    id: "brevo-api-key",
    source: "gitleaks:sendinblue-api-token",
    prefixes: ["xkeysib-", "xsmtpsib-"],
    token: "x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}(?![A-Za-z0-9])",
  },
  {
    id: "dynatrace-api-token",
    source: "gitleaks:dynatrace-api-token",
    prefixes: ["dt0c01."],
    token: "dt0c01\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}(?![A-Za-z0-9])",
  },
  {
    id: "mapbox-secret-token",
    source: "gitleaks:mapbox-api-token",
    prefixes: ["sk.eyJ"],
    token: "sk\\.eyJ[A-Za-z0-9_-]{20,}\\.[A-Za-z0-9_-]{20,}" + tokenTail,
  },
  { id: "mailgun-private-key", source: "gitleaks:mailgun-private-api-token", prefixes: ["key-"], token: "key-[a-f0-9]{32}(?![A-Za-z0-9])" },
  {
    id: "alibaba-access-key-id",
    source: "gitleaks:alibaba-access-key-id",
    prefixes: ["LTAI"],
    token: "LTAI[A-Za-z0-9]{20}(?![A-Za-z0-9])",
  },
  { id: "adobe-client-secret", source: "gitleaks:adobe-client-secret", prefixes: ["p8e-"], token: "p8e-[A-Za-z0-9]{32}(?![A-Za-z0-9])" },
  { id: "clojars-api-token", source: "gitleaks:clojars-api-token", prefixes: ["CLOJARS_"], token: "CLOJARS_[a-z0-9]{60}(?![A-Za-z0-9])" },
  {
    id: "dropbox-api-token",
    source: "gitleaks:dropbox-short-lived-api-token",
    prefixes: ["sl."],
    token: "sl\\.[A-Za-z0-9_=-]{130,}" + tokenTail,
  },
  {
    id: "discord-bot-token",
    source: "agent-onion: Discord's bot token format",
    prefixes: ["M", "N", "O"],
    token: "[MNO][A-Za-z0-9]{23,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}" + tokenTail,
  },
  { id: "typeform-token", source: "gitleaks:typeform-api-token", prefixes: ["tfp_"], token: "tfp_[A-Za-z0-9_.=-]{59,}" + tokenTail },
  { id: "prefect-api-token", source: "gitleaks:prefect-api-token", prefixes: ["pnu_"], token: "pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])" },
  { id: "readme-api-token", source: "gitleaks:readme-api-token", prefixes: ["rdme_"], token: "rdme_[a-z0-9]{70}(?![A-Za-z0-9])" },
  {
    id: "easypost-api-token",
    source: "gitleaks:easypost-api-token",
    prefixes: ["EZAK", "EZTK"],
    token: "EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9])",
  },
  { id: "frameio-api-token", source: "gitleaks:frameio-api-token", prefixes: ["fio-u-"], token: "fio-u-[A-Za-z0-9_=-]{64}" + tokenTail },
  { id: "scalingo-api-token", source: "gitleaks:scalingo-api-token", prefixes: ["tk-us-"], token: "tk-us-[A-Za-z0-9_-]{48}" + tokenTail },
  {
    id: "supabase-token",
    source: "agent-onion: Supabase's sbp_ personal access tokens",
    prefixes: ["sbp_"],
    token: "sbp_[a-f0-9]{40}(?![A-Za-z0-9])",
  },
  {
    id: "netlify-token",
    source: "agent-onion: Netlify's nfp_ personal access tokens",
    prefixes: ["nfp_"],
    token: "nfp_[A-Za-z0-9]{36}(?![A-Za-z0-9])",
  },
  {
    id: "1password-secret-key",
    source: "gitleaks:1password-secret-key",
    prefixes: ["A3-"],
    token: "A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9])",
  },
];

/**
 * Token rules looked for only where a run of token characters starts (after a space, a quote, an
 * operator) or after a `=` in it, not after every character inside a run that is not a letter:
 * their prefixes start with two characters that are common there (`/api/…`, `/v1/…`, hex ids,
 * `_AB…`), and looking for them inside every run cost 4 to 6 % on service logs. All from
 * gitleaks' rules, which `tokenRules` did not cover.
 *
 * @example
 * runStartRules.some((r) => r.id === "perplexity-api-key") // true
 */
export const runStartRules: readonly TokenRule[] = [
  {
    id: "grafana-api-key",
    source: "gitleaks:grafana-api-key",
    prefixes: ["eyJrIjoi"],
    token: "eyJrIjoi[A-Za-z0-9]{70,}={0,3}(?![A-Za-z0-9+/=])",
  },
  {
    id: "jwt-base64",
    source: "gitleaks:jwt-base64",
    prefixes: ["ZXlKaGJHY2lPaU"],
    token: "ZXlKaGJHY2lPaU[A-Za-z0-9+/]{40,}={0,2}(?![A-Za-z0-9+/=])",
  },
  {
    id: "perplexity-api-key",
    source: "gitleaks:perplexity-api-key",
    prefixes: ["pplx-"],
    token: "pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9])",
  },
  {
    id: "artifactory-api-key",
    source: "gitleaks:artifactory-api-key",
    prefixes: ["AKCp"],
    token: "AKCp[A-Za-z0-9]{69}(?![A-Za-z0-9])",
  },
  {
    id: "artifactory-reference-token",
    source: "gitleaks:artifactory-reference-token",
    prefixes: ["cmVmd"],
    token: "cmVmd[A-Za-z0-9]{59}(?![A-Za-z0-9])",
  },
  {
    id: "huggingface-organization-token",
    source: "gitleaks:huggingface-organization-api-token",
    prefixes: ["api_org_"],
    token: "api_org_[A-Za-z]{34}(?![A-Za-z0-9])",
  },
  {
    id: "sourcegraph-access-token",
    source: "gitleaks:sourcegraph-access-token",
    prefixes: ["sgp_"],
    token: "sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}(?![A-Za-z0-9])",
  },
  {
    id: "openshift-user-token",
    source: "gitleaks:openshift-user-token",
    prefixes: ["sha256~"],
    token: "sha256~[A-Za-z0-9_-]{43}" + tokenTail,
  },
  {
    id: "aws-bedrock-api-key",
    source: "gitleaks:aws-amazon-bedrock-api-key-long-lived",
    prefixes: ["ABSK", "bedrock-api-key-"],
    token: "(?:ABSK[A-Za-z0-9+/]{109,}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]*)(?![A-Za-z0-9+/=])",
  },
  {
    id: "octopus-deploy-api-key",
    source: "gitleaks:octopus-deploy-api-key",
    prefixes: ["API-"],
    token: "API-[A-Z0-9]{26}(?![A-Za-z0-9])",
  },
  { id: "infracost-api-token", source: "gitleaks:infracost-api-token", prefixes: ["ico-"], token: "ico-[A-Za-z0-9]{32}(?![A-Za-z0-9])" },
  {
    id: "duffel-api-token",
    source: "gitleaks:duffel-api-token",
    prefixes: ["duffel_test_", "duffel_live_"],
    token: "duffel_(?:test|live)_[A-Za-z0-9_=-]{43}" + tokenTail,
  },
  {
    id: "flutterwave-secret-key",
    source: "gitleaks:flutterwave-secret-key",
    prefixes: ["FLWSECK_TEST-", "FLWSECK-"],
    token: "FLWSECK(?:_TEST)?-[A-Ha-h0-9]{12,}(?:-X)?(?![A-Za-z0-9])",
  },
  {
    id: "settlemint-access-token",
    source: "gitleaks:settlemint-personal-access-token",
    prefixes: ["sm_aat_", "sm_pat_", "sm_sat_"],
    token: "sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}(?![A-Za-z0-9])",
  },
  {
    id: "clickhouse-cloud-api-secret-key",
    source: "gitleaks:clickhouse-cloud-api-secret-key",
    prefixes: ["4b1d"],
    token: "4b1d[A-Za-z0-9]{38}(?![A-Za-z0-9])",
  },
  {
    id: "cloudflare-origin-ca-key",
    source: "gitleaks:cloudflare-origin-ca-key",
    prefixes: ["v1.0-"],
    token: "v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}(?![A-Za-z0-9])",
  },
  {
    id: "facebook-page-access-token",
    source: "gitleaks:facebook-page-access-token",
    prefixes: ["EAAC", "EAAM"],
    token: "EAA[MC][A-Za-z0-9]{100,}(?![A-Za-z0-9])",
  },
  {
    id: "gitlab-runner-registration-token",
    source: "gitleaks:gitlab-rrt",
    prefixes: ["GR1348941"],
    token: "GR1348941[A-Za-z0-9_-]{20,}" + tokenTail,
  },
  {
    id: "gitlab-session-cookie",
    source: "gitleaks:gitlab-session-cookie",
    prefixes: ["_gitlab_session="],
    token: "_gitlab_session=[0-9a-z]{32}(?![A-Za-z0-9])",
  },
  {
    id: "defined-networking-api-token",
    source: "gitleaks:defined-networking-api-token",
    prefixes: ["dnkey-"],
    token: "dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}" + tokenTail,
  },
  {
    id: "intra42-client-secret",
    source: "gitleaks:intra42-client-secret",
    prefixes: ["s-s4t2ud-", "s-s4t2af-"],
    token: "s-s4t2(?:ud|af)-[a-fA-F0-9]{64}(?![A-Za-z0-9])",
  },
  {
    id: "authress-service-client-access-key",
    source: "gitleaks:authress-service-client-access-key",
    prefixes: ["sc_", "ext_", "scauth_", "authress_"],
    token:
      "(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,}" + tokenTail,
  },
  {
    id: "yandex-api-key",
    source: "gitleaks:yandex-api-key",
    prefixes: ["AQVN"],
    token: "AQVN[A-Za-z0-9_-]{35,38}" + tokenTail,
  },
  {
    id: "stripe-webhook-secret",
    source: "agent-onion: Stripe's webhook signing secrets",
    prefixes: ["whsec_"],
    token: "whsec_[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/=])",
  },
  {
    // Base64 of a PEM private key's header, as kubeconfig's `client-key-data` and a Kubernetes
    // secret's `tls.key` hold a key; a certificate's (`LS0tLS1CRUdJTiBDRVJU…`) is left alone.
    id: "base64-private-key",
    source: "agent-onion: base64 of gitleaks' private-key header",
    prefixes: ["LS0tLS1CRUdJTi"],
    token:
      "LS0tLS1CRUdJTi(?:BSU0EgUFJJVkFURSBLRVkt|BFQyBQUklWQVRFIEtFWS|BEU0EgUFJJVkFURSBLRVkt|BPUEVOU1NIIFBSSVZBVEUgS0VZ|BQUklWQVRFIEtFWS|BFTkNSWVBURUQgUFJJVkFURSBLRVkt|BQR1AgUFJJVkFURSBLRVkgQkxPQ0st)[A-Za-z0-9+/]*={0,2}(?![A-Za-z0-9+/=])",
  },
];

/**
 * Credentials that are whole URLs (the URL is the secret: whoever has it can post): found from the
 * host name, redacted from the scheme to the end of the URL.
 */
export interface UrlRule {
  readonly id: string;
  readonly source: string;
  /** A literal the URL always holds, searched for first. */
  readonly anchor: string;
  /** The whole URL, matched from its `https://`. */
  readonly url: string;
}

/**
 * Webhook URLs.
 *
 * @example
 * urlRules.map((r) => r.anchor) // ["hooks.slack.com/", "discord.com/api/webhooks/", ...]
 */
export const urlRules: readonly UrlRule[] = [
  {
    id: "slack-webhook-url",
    source: "secretlint:@secretlint/secretlint-rule-slack",
    anchor: "hooks.slack.com/",
    url: "https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{10,}",
  },
  {
    id: "discord-webhook-url",
    source: "agent-onion: Discord's webhook URLs",
    anchor: "discord.com/api/webhooks/",
    url: "https?://(?:[a-z]+\\.)?discord\\.com/api/webhooks/\\d{5,30}/[A-Za-z0-9_-]{30,}",
  },
  {
    id: "discord-webhook-url-legacy",
    source: "agent-onion: Discord's webhook URLs",
    anchor: "discordapp.com/api/webhooks/",
    url: "https?://(?:[a-z]+\\.)?discordapp\\.com/api/webhooks/\\d{5,30}/[A-Za-z0-9_-]{30,}",
  },
  {
    id: "google-chat-webhook",
    source: "agent-onion: Google Chat's incoming webhook URLs (their key and token are in the query)",
    anchor: "chat.googleapis.com/v1/spaces/",
    url: "https://chat\\.googleapis\\.com/v1/spaces/[A-Za-z0-9_-]{6,}/messages\\?[A-Za-z0-9_.~%&=-]{20,}",
  },
  {
    id: "zapier-webhook",
    source: "agent-onion: Zapier's catch hook URLs",
    anchor: "hooks.zapier.com/hooks/catch/",
    url: "https://hooks\\.zapier\\.com/hooks/catch/\\d{3,}/[A-Za-z0-9]{4,}/?",
  },
  {
    id: "ifttt-webhook",
    source: "agent-onion: IFTTT's webhook URLs (the key is in the path)",
    anchor: "maker.ifttt.com/trigger/",
    url: "https://maker\\.ifttt\\.com/trigger/[A-Za-z0-9_-]{1,100}/(?:json/)?with/key/[A-Za-z0-9_-]{16,}",
  },
  {
    id: "microsoft-teams-webhook",
    source: "gitleaks:microsoft-teams-webhook",
    anchor: ".webhook.office.com/webhookb2/",
    url: "https://[a-z0-9-]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}",
  },
];

/**
 * Words that name a secret in an assignment (`GITHUB_TOKEN=`, `"client_secret": "`, `password:`),
 * modeled on gitleaks' `generic-api-key` keywords, with `key` only in compounds that name a
 * secret (`api_key`, `secret_key`, `private_key`, ...); `auth` is one only as a whole name (see
 * `wholeSecretNames`).
 */
export const secretKeywords =
  "api[_.-]?key|apikey|api[_.-]?token|access[_.-]?(?:key|token)|account[_.-]?key|shared[_.-]?access[_.-]?key|auth[_.-]?(?:key|token)|secret|token|passw(?:or)?d|passphrase|pwd|credentials?|creds|private[_.-]?key|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key|session[_.-]?key|client[_.-]?key|[_-]key";

/**
 * Names that say their value is secret only when they are the whole name: `.npmrc`'s `_auth`, docker's `"auth"`.
 *
 * @example
 * new RegExp(`^(?:${wholeSecretNames})$`, "i").test("_auth") // true
 */
export const wholeSecretNames = "_?auth";

/**
 * Names that hold a keyword but no secret, from gitleaks' allow list of the generic rule: ids,
 * names, lengths, files and public or structural keys.
 */
export const notSecretNames =
  "(?:next|prev(?:ious)?)?[_.-]?page[_.-]?token|(?:next|continuation|sync|resume)[_.-]?token|(?:token|secret|key|api|credentials?)[_.-]?(?:ids?|names?|length|size|type|types|count|counts|file|path|ur[il]|endpoint|version|expir\\w*|limit|usage|format|prefix)|(?:csrf|xsrf|public|max|input|output|total|prompt|completion|cache|refresh[_.-]?token[_.-]?expir)[_.-]?tokens?|tokeni[sz]\\w*|pub(?:lic)?[_.-]?key[_.-]?token|(?:passw(?:or)?d|passphrase|pwd)[_.-]?(?:hash\\w*|algorithm|min\\w*|max\\w*|length|policy|policies|reset\\w*|chang\\w*|expir\\w*|hint|prompt|field|label|strength|rules?|history|age|complexity|updated\\w*|last\\w*|less|protected|manager|file|path|ur[il]|endpoint|form|input|required|enabled|attempts|retries|lockout|\\w*_at)|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence|sort|partition|cache|idempotency|object|row|map|hash|dict|lookup|index|composite|unique)[_.-]?key|key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right|vault\\w*|store\\w*|tab\\w*|file|path|type|s)|user[_.-]?secrets?[_.-]?id|secret[_.-]?(?:ref|arn|manager)";

/**
 * Rules of secretlint's recommended preset that are covered by a detector other than a token
 * rule, and what covers each (a test checks that every rule of the preset is covered).
 *
 * @example
 * coveredElsewhere["@secretlint/secretlint-rule-basicauth"] // "urlCredentials"
 */
export const coveredElsewhere: Readonly<Record<string, string>> = {
  "@secretlint/secretlint-rule-anthropic": "openai-anthropic-api-key (one `sk-` rule)",
  "@secretlint/secretlint-rule-privatekey": "privateKey",
  "@secretlint/secretlint-rule-gcp": "privateKey (the service account file's private_key)",
  "@secretlint/secretlint-rule-basicauth": "urlCredentials",
  "@secretlint/secretlint-rule-database-connection-string": "urlCredentials",
  "@secretlint/secretlint-rule-filter-comments": "nothing: it reads `secretlint-disable` comments, it detects nothing",
};
