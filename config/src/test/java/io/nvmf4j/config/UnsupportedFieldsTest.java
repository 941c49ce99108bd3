package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader's rule: a field nvmf4j does not implement and that would weaken security or change what hosts see if
 * ignored is an error naming the field and line, unless {@code --config-allow-unsupported NAME}
 * ({@link ConfigLoader#allowingUnsupported}) downgrades it to a warning; harmless unknown fields stay warnings.
 */
class UnsupportedFieldsTest {

    private static final String HINT = " (serving without it would change what hosts get;"
            + " --config-allow-unsupported ";

    @TempDir
    Path dir;

    @BeforeEach
    void createDiskImage() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[4096]);
    }

    /** One rdma port exporting one subsystem with one namespace; %s pieces are spliced in at fixed lines. */
    private static String document(String addrExtra, String portExtra, String attrExtra, String nsExtra,
            String subsystemExtra) {
        return """
                {
                  "ports": [{
                    "portid": 1,
                    "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420"%s},
                    "subsystems": ["nqn.2024-01.io.nvmf4j:a"]%s
                  }],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"%s},
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}%s}]%s
                  }]
                }
                """.formatted(addrExtra, portExtra, attrExtra, nsExtra, subsystemExtra);
    }

    private String errors(String json) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.standard().parse(json, "config.json", dir))
                .getMessage();
    }

    private String warningsAllowing(String json, UnsupportedFeature feature) throws ConfigException {
        return ConfigLoader.standard().allowingUnsupported(Set.of(feature)).parse(json, "config.json", dir)
                .formatWarnings();
    }

    private void refusedThenAllowed(String json, UnsupportedFeature feature, String at, String what)
            throws ConfigException {
        assertEquals(at + ": " + what + ": " + feature.description() + " not supported by nvmf4j" + HINT
                + feature.flagName() + " ignores it)", errors(json));
        assertEquals("warning: " + at + ": " + what + ": " + feature.description() + " not supported by nvmf4j,"
                + " ignored as --config-allow-unsupported " + feature.flagName() + " asks",
                warningsAllowing(json, feature));
    }

    @Test
    void secureChannelRequiredIsTls() throws Exception {
        refusedThenAllowed(document(", \"treq\": \"required\"", "", "", "", ""), UnsupportedFeature.TLS,
                "config.json:4: ports[0].addr.treq", "is \"required\"");
    }

    @Test
    void tsasTls13IsTls() throws Exception {
        refusedThenAllowed(document(", \"tsas\": \"tls1.3\"", "", "", "", ""), UnsupportedFeature.TLS,
                "config.json:4: ports[0].addr.tsas", "is \"tls1.3\"");
    }

    @Test
    void tsasConnectedAndTreqNotRequiredAreFine() throws Exception {
        assertEquals("", ConfigLoader.standard().parse(document(", \"tsas\": \"connected\", \"treq\": \"not"
                + " required\"", "", "", "", ""), "config.json", dir).formatWarnings());
    }

    @Test
    void referralsAnaGroupsAndReservationsLoadBecauseTheTargetServesThem() throws Exception {
        // served since issue 18: the discovery log's referral entries, the ANA log and states, reservations
        assertEquals("", ConfigLoader.standard().parse(document("", ",\n\"referrals\": [{\"name\": \"peer\","
                + " \"enable\": 0}],\n\"ana_groups\": [{\"grpid\": 2, \"ana\": {\"state\": \"inaccessible\"}}]",
                "", ", \"ana_grpid\": 2, \"resv\": {\"enable\": \"1\"}", ""), "config.json", dir).formatWarnings());
    }

    @Test
    void anaGroupOneOptimizedAsLinuxDumpsItIsFine() throws Exception {
        assertEquals("", ConfigLoader.standard().parse(document("",
                ",\n\"ana_groups\": [{\"grpid\": 1, \"ana\": {\"state\": \"optimized\"}}]", "", ", \"ana_grpid\": 1",
                ""), "config.json", dir).formatWarnings());
    }

    @Test
    void enabledPassthruIsRefused() throws Exception {
        refusedThenAllowed(document("", "", "", "", ",\n\"passthru\": [{\"enable\": 1, \"device\": {\"path\": \"\"}}]"),
                UnsupportedFeature.PASSTHRU, "config.json:11: subsystems[0].passthru[0].enable", "is 1");
    }

    @Test
    void protectionInformationIsRefused() throws Exception {
        refusedThenAllowed(document("", "", ", \"pi_enable\": \"1\"", "", ""), UnsupportedFeature.PI,
                "config.json:9: subsystems[0].attr.pi_enable", "is 1");
    }

    @Test
    void allowingOneFeatureDoesNotAllowAnother() {
        String json = document(", \"treq\": \"required\"", "", ", \"pi_enable\": \"1\"", "", "");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.standard()
                .allowingUnsupported(Set.of(UnsupportedFeature.PI)).parse(json, "config.json", dir));
        assertTrue(e.getMessage().startsWith("config.json:4: ports[0].addr.treq: is \"required\""), e.getMessage());
        assertEquals(1, e.problems().size(), e.getMessage());
    }

    @Test
    void harmlessUnknownFieldsStayWarnings() throws Exception {
        assertEquals("warning: config.json:10: subsystems[0].namespaces[0].colour: unknown field, ignored",
                ConfigLoader.standard().parse(document("", "", "", ", \"colour\": \"blue\"", ""), "config.json", dir)
                        .formatWarnings());
    }

    @Test
    void featureNamesAreTheFlagsValues() {
        assertEquals("tls, passthru, pi", UnsupportedFeature.flagNames());
        assertEquals(UnsupportedFeature.TLS, UnsupportedFeature.fromFlagName(" TLS ").orElseThrow());
        assertTrue(UnsupportedFeature.fromFlagName("dhchap").isEmpty(), "authentication is never downgraded");
    }
}
