import { describe, expect, it } from "vitest";
import { ExecutorError } from "../../src/executors/errors.ts";
import { checkAddress, classifyAddress, guardedLookup, type Resolver } from "../../src/executors/ssrf.ts";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["[::ffff:127.0.0.1]", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::127.0.0.1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["2002:7f00:1::", "loopback"],
    ["2002:0a00:0001::", "private"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2001:0:4136::1", "reserved"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["2606:4700::1111", "public"],
  ])("classifies %s as %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each(["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.0.1.", "localhost", "", "1.2.3.256"])(
    "treats the odd spelling %j as invalid rather than guessing",
    (ip) => {
      expect(classifyAddress(ip)).toBe("invalid");
    },
  );
});

describe("checkAddress", () => {
  it("refuses loopback unless the policy allows it", () => {
    expect(() => checkAddress("127.0.0.1", {})).toThrow(/loopback address not allowed/);
    expect(() => checkAddress("127.0.0.1", { loopback: true })).not.toThrow();
  });

  it("keeps metadata addresses refused when only link-local is allowed", () => {
    expect(() => checkAddress("169.254.169.254", { linkLocal: true })).toThrow(/metadata/);
  });

  it("always refuses unspecified, multicast and invalid addresses", () => {
    const all = { loopback: true, private: true, linkLocal: true, metadata: true };
    for (const ip of ["0.0.0.0", "::", "224.0.0.1", "2130706433"]) expect(() => checkAddress(ip, all)).toThrow(ExecutorError);
  });
});

const lookupOnce = (lookup: ReturnType<typeof guardedLookup>, all: boolean): Promise<unknown> =>
  new Promise((resolve, reject) => lookup("hooks.example", { all }, (error, address) => (error ? reject(error) : resolve(address))));

describe("guardedLookup", () => {
  it("refuses the connection when any resolved address is private (rebinding with mixed answers)", async () => {
    const resolver: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    await expect(lookupOnce(guardedLookup({}, resolver), true)).rejects.toThrow(/hooks.example \(127.0.0.1\): loopback/);
  });

  it("checks again on every connection, so a rebinding resolver is caught on the second answer", async () => {
    let n = 0;
    const rebinding: Resolver = async () => [{ address: n++ === 0 ? "93.184.216.34" : "169.254.169.254", family: 4 }];
    const lookup = guardedLookup({}, rebinding);
    await expect(lookupOnce(lookup, false)).resolves.toBe("93.184.216.34");
    await expect(lookupOnce(lookup, false)).rejects.toThrow(/metadata/);
  });

  it("refuses odd encodings coming back from a resolver", async () => {
    for (const address of ["2130706433", "0x7f000001"]) {
      const resolver: Resolver = async () => [{ address, family: 4 }];
      await expect(lookupOnce(guardedLookup({ loopback: true }, resolver), true)).rejects.toThrow(/not a canonical IP/);
    }
  });

  it("hands the checked addresses to the socket in the form it asked for", async () => {
    const resolver: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    await expect(lookupOnce(guardedLookup({ loopback: true }, resolver), true)).resolves.toEqual([{ address: "127.0.0.1", family: 4 }]);
    await expect(lookupOnce(guardedLookup({ loopback: true }, resolver), false)).resolves.toBe("127.0.0.1");
  });
});
