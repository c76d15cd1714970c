/**
 * A company's small pool of uploaded mobile apps (seed 2.3.2). Plans reuse these records, so
 * the same app id shows up in many plans, as on the real service. Exactly one record carries
 * metadata that is not valid JSON (an apostrophe escaped as \' like the documented examples):
 * clients must keep such a string raw instead of failing.
 */
import type { Rng } from "./prng.js";

export interface SimMobileApp {
  id: number;
  mobile_app_name: string;
  mobile_app_hash: string;
  operating_system: "ANDROID" | "IOS";
  mobile_app_metadata: string;
  created_at: string;
}

export interface MobileAppPool {
  android: SimMobileApp[];
  ios: SimMobileApp[];
  /** Android app whose metadata does not parse; always android[0]. */
  broken: SimMobileApp;
}

interface AppSeed {
  file: string;
  label: string;
  pkg: string;
}

const ANDROID: readonly AppSeed[] = [
  { file: "appli-test.apk", label: "L'Appli de Test", pkg: "fr.exemple.applitest" },
  { file: "calisma-zamani.apk", label: "Çalışma Zamanı", pkg: "com.ornek.calisma" },
  { file: "test-app-jp.apk", label: "テストアプリ", pkg: "jp.example.testapp" },
  { file: "musteri-portali.apk", label: "Müşteri Portalı", pkg: "com.ornek.musteri" },
];

const IOS: readonly AppSeed[] = [
  { file: "BobsBanking.ipa", label: "Bob's Banking", pkg: "com.example.bobsbanking" },
  { file: "OdemeEkrani.ipa", label: "Ödeme Ekranı", pkg: "com.ornek.odeme" },
  { file: "CafeDejaVu.ipa", label: "Café Déjà Vu", pkg: "fr.exemple.cafe" },
];

/** "YYYY-MM-DD HH:MM:SS", no zone, as the service prints it. */
function serviceDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace("T", " ");
}

function version(rng: Rng): { name: string; code: number } {
  const [major, minor, patch] = [rng.int(1, 9), rng.int(0, 20), rng.int(0, 9)];
  return { name: `${major}.${minor}.${patch}`, code: major * 10000 + minor * 100 + patch };
}

function androidMetadata(rng: Rng, app: AppSeed): string {
  const v = version(rng);
  return JSON.stringify({
    packageName: app.pkg,
    label: app.label,
    icon: "res/mipmap-xxxhdpi-v4/ic_launcher.png",
    versionName: v.name,
    versionCode: v.code,
    minSdkVersion: String(rng.int(19, 26)),
    targetSdkVersion: String(rng.int(30, 34)),
    glEsVersion: { major: 2, minor: 0, required: true },
  });
}

function iosMetadata(rng: Rng, app: AppSeed): string {
  const v = version(rng);
  const exe = app.file.replace(/\.ipa$/, "");
  return JSON.stringify({
    bundleName: exe,
    bundleDisplayName: app.label,
    bundleVersion: v.name,
    bundleMinOsVersion: `${rng.int(12, 16)}.0`,
    bundleDevelopmentRegion: rng.pick(["en", "tr", "fr", "ja"]),
    bundleExecutable: exe,
    bundleIconFiles: ["AppIcon60x60", "AppIcon76x76"],
    bundleInfoDictVersion: "6.0",
    bundlePackageType: "APPL",
    bundleMainStoryBoardFile: "Main",
  });
}

function record(rng: Rng, id: number, os: "ANDROID" | "IOS", app: AppSeed, metadata: string): SimMobileApp {
  // Uploads between 2019 and 2024, whole seconds.
  const createdAt = 1_546_300_800_000 + rng.int(0, 5 * 365 * 86_400) * 1000;
  return {
    id,
    mobile_app_name: app.file,
    mobile_app_hash: rng.hex(32),
    operating_system: os,
    mobile_app_metadata: metadata,
    created_at: serviceDateTime(createdAt),
  };
}

export function buildMobileAppPool(rng: Rng, firstAppId: number): MobileAppPool {
  let nextId = firstAppId;
  const android = ANDROID.map((app, i) => {
    let meta = androidMetadata(rng, app);
    // The documented examples escape the apostrophe Java-style, which JSON does not allow.
    if (i === 0) meta = meta.replace("L'Appli", "L\\'Appli");
    return record(rng, nextId++, "ANDROID", app, meta);
  });
  const ios = IOS.map((app) => record(rng, nextId++, "IOS", app, iosMetadata(rng, app)));
  const broken = android[0];
  if (!broken) throw new Error("empty android pool");
  return { android, ios, broken };
}
