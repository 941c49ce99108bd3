package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapSecret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * nvmetcli's {@code hosts[].dhchap} (Linux nvmet's dhchap_key, dhchap_ctrl_key, dhchap_hash, dhchap_dhgroup host
 * attributes, as {@code nvmetcli save} dumps them on a kernel with CONFIG_NVME_TARGET_AUTH). The fixture
 * {@code rdma-dhchap.json} is laid out as nvmetcli writes it ({@code json.dumps(sort_keys=True, indent=2)}).
 */
class DhchapConfigTest {

    /** `nvme gen-dhchap-key --secret=00..3f --key-length=64 --hmac=3 --nqn=...:0001` (nvme-cli 2.3). */
    static final String SHA512_KEY = "DHHC-1:03:XaedOIjF3axQewl4QMTIr4xwmePzL78hYgnSQQP1S88iKE5wNLtXmomXR19QrsC/88yt"
            + "GEVjd56B9IxAUHG5cMGgMCQ=:";
    /** `nvme gen-dhchap-key --secret=fffe..e0 --key-length=32 --hmac=0` (nvme-cli 2.3). */
    static final String PLAIN_KEY = "DHHC-1:00://79/Pv6+fj39vX08/Lx8O/u7ezr6uno5+bl5OPi4eAsgEB3:";
    static final String HOST1 = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8052-b4c04f4e4d32";
    static final String HOST2 = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000002";

    @TempDir
    Path dir;

    @Test
    void nvmetcliSavedFileWithADhchapHostLoadsItsKeys() throws Exception {
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks()
                .load(NvmetcliExamplesTest.resource("rdma-dhchap.json"));
        TargetConfig c = loaded.config();

        HostConfig h1 = c.hosts().get(0);
        assertEquals(HOST1, h1.nqn());
        DhchapKeys keys = h1.keys().orElseThrow();
        assertEquals(DhchapSecret.parse(SHA512_KEY), keys.key());
        assertEquals(DhchapSecret.parse(PLAIN_KEY), keys.ctrlKey());
        assertTrue(keys.bidirectional());
        assertEquals(Set.of(DhchapHash.SHA512), keys.hashes());
        assertEquals(Set.of(DhchapDhGroup.FFDHE8192), keys.dhGroups());

        HostConfig h2 = c.hosts().get(1);
        assertEquals(HOST2, h2.nqn());
        assertTrue(h2.keys().isEmpty(), "key \"\" is nvmet's unset key: the host is not authenticated");
        assertFalse(h2.dhchap().requiresAuthentication());
        assertEquals(DhchapHash.SHA256, h2.dhchap().hash());
        assertEquals(DhchapDhGroup.NULL, h2.dhchap().dhGroup());

        assertEquals(2, c.ports().size(), "the tcp port is served beside the rdma one");
        assertEquals(new PortAddress("tcp", "ipv4", "192.168.100.8", "4420", "not specified"), c.ports().get(1).addr());
        assertEquals(List.of("nqn.2024-01.io.nvmf4j:secure0"), c.ports().get(1).subsystems());
        assertEquals("", loaded.formatWarnings());
    }

    @Test
    void saveWritesTheKeysBackInNvmetclisSchemaAndTheyReload() throws Exception {
        TargetConfig first = ConfigLoader.withoutDevicePathChecks()
                .load(NvmetcliExamplesTest.resource("rdma-dhchap.json")).config();
        String json = first.toJson();
        assertTrue(json.contains(String.join("\n",
                "    {",
                "      \"dhchap\": {",
                "        \"ctrl_key\": \"" + PLAIN_KEY + "\",",
                "        \"dhgroup\": \"ffdhe8192\",",
                "        \"hash\": \"hmac(sha512)\",",
                "        \"key\": \"" + SHA512_KEY + "\"",
                "      },",
                "      \"nqn\": \"" + HOST1 + "\"",
                "    },")), json);
        Path written = Files.writeString(dir.resolve("saved.json"), json);
        TargetConfig second = ConfigLoader.withoutDevicePathChecks().load(written).config();
        assertEquals(first.hosts(), second.hosts());
        assertEquals(json, second.toJson());
    }

    @Test
    void hashAndGroupLeftOutAllowEveryOneAndAreNotWrittenBack() throws Exception {
        TargetConfig c = load("""
                {
                  "hosts": [{"nqn": "nqn.2024-01.io.nvmf4j:h", "dhchap": {"key": "%s"}}]
                }
                """.formatted(PLAIN_KEY));
        DhchapKeys keys = c.hosts().getFirst().keys().orElseThrow();
        assertEquals(EnumSet.allOf(DhchapHash.class), keys.hashes());
        assertEquals(EnumSet.allOf(DhchapDhGroup.class), keys.dhGroups());
        assertNull(keys.ctrlKey());
        assertTrue(c.toJson().contains("\"dhchap\": {\n        \"ctrl_key\": \"\",\n        \"key\": \""), c.toJson());
    }

    @Test
    void aKeyWithABadCrcIsAnErrorNamingFieldAndLineWithoutQuotingTheSecret() {
        String broken = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AAAAA:";
        String message = errors("""
                {
                  "hosts": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:h",
                    "dhchap": {
                      "key": "%s"
                    }
                  }]
                }
                """.formatted(broken));
        assertTrue(message.startsWith("config.json:5: hosts[0].dhchap.key: not a DH-HMAC-CHAP secret"), message);
        assertFalse(message.contains("AAECAwQF"), "never print a secret: " + message);
    }

    @Test
    void hashGroupControllerKeyAndUnknownFieldsAreChecked() {
        assertEquals("""
                     config.json:5: hosts[0].dhchap.ctrl_key: a controller key needs a host key (key is empty): Linux nvmet would not authenticate this host at all
                     config.json:6: hosts[0].dhchap.hash: must be hmac(sha256), hmac(sha384) or hmac(sha512), got "sha256"
                     config.json:7: hosts[0].dhchap.dhgroup: must be null, ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192, got "2048"
                     config.json:8: hosts[0].dhchap.tls_key: unknown authentication setting (nvmetcli's dhchap has key, ctrl_key, hash, dhgroup): refusing to ignore it\
                     """,
                errors("""
                {
                  "hosts": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:h",
                    "dhchap": {
                      "key": "", "ctrl_key": "%s",
                      "hash": "sha256",
                      "dhgroup": "2048",
                      "tls_key": "x"
                    }
                  }]
                }
                """.formatted(PLAIN_KEY)));
    }

    @Test
    void allowAnyHostNextToAKeyedHostIsAWarning() throws Exception {
        assertEquals("warning: config.json:5: subsystems[0].attr.allow_any_host: is 1: hosts with a dhchap key connect"
                + " to this subsystem without authentication (as with Linux nvmet); list them in allowed_hosts to"
                + " require it", ConfigLoader.standard().parse("""
                {
                  "hosts": [{"nqn": "nqn.2024-01.io.nvmf4j:h", "dhchap": {"key": "%s"}}],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"}
                  }]
                }
                """.formatted(PLAIN_KEY), "config.json", dir).formatWarnings());
    }

    @Test
    void aHostWithoutDhchapHasNoKeys() throws Exception {
        TargetConfig c = load("""
                {"hosts": [{"nqn": "nqn.2024-01.io.nvmf4j:h"}]}
                """);
        assertEquals(List.of(new HostConfig("nqn.2024-01.io.nvmf4j:h")), c.hosts());
        assertTrue(c.hosts().getFirst().keys().isEmpty());
        assertFalse(c.toJson().contains("dhchap"));
    }

    private TargetConfig load(String json) throws ConfigException {
        return ConfigLoader.standard().parse(json, "config.json", dir).config();
    }

    private String errors(String json) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.standard().parse(json, "config.json", dir))
                .getMessage();
    }
}
