package io.nvmf4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.ProviderUnavailableException;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Which providers the suite runs on, and the discovery API that decides it. */
class ProviderDiscoveryConformanceTest {

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void softiwarpIsAvailableEverywhereSoTheSuiteAlwaysRunsOnAtLeastOneProvider() throws Exception {
        RdmaProvider softiwarp = RdmaProviders.byName("softiwarp");
        assertTrue(softiwarp.availability().present(), softiwarp.availability().reason());
        Assumptions.assumeTrue(System.getProperty("nvmf4j.conformance.provider") == null,
                "the suite is pointed at one provider (nvmf4j.conformance.provider)");
        assertTrue(ProviderUnderTest.available().anyMatch(p -> p.provider().name().equals("softiwarp")));
        assertTrue(RdmaProviders.auto().availability().present());
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void unknownProviderNameIsRefusedWithAReason() {
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class,
                () -> RdmaProviders.byName("no-such-provider"));
        assertTrue(e.getMessage().contains("no-such-provider"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void availableProviderOpensItsFirstDeviceAndReportsSaneLimits(ProviderUnderTest provider) throws Exception {
        assertFalse(provider.provider().deviceNames().isEmpty(), "an available provider lists a device");
        try (RdmaDevice device = provider.openDevice()) {
            assertEquals(provider.provider().name(), device.providerName());
            assertTrue(provider.provider().deviceNames().contains(device.name()), device.name());
            var attributes = device.attributes();
            assertTrue(attributes.maxQpWr() >= 128, attributes::toString);
            assertTrue(attributes.maxSge() >= 3, attributes::toString);
            assertTrue(attributes.maxSgeRd() >= 1, attributes::toString);
            assertTrue(attributes.maxMrSize() >= 16 << 20, attributes::toString);
            assertTrue(attributes.maxQpRdAtom() >= 1 && attributes.maxQpInitRdAtom() >= 1, attributes::toString);
        }
    }
}
