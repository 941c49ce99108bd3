package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.nvmf4j.verbs.ProviderAvailability;
import io.nvmf4j.verbs.ProviderUnavailableException;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsErrorCode;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user without RDMA hardware sees: one sentence that says what is missing and names
 * {@code --provider softiwarp}, no stack trace. The machine decides which sentence applies; each branch is
 * asserted exactly.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class IbverbsAvailabilityTest {
    private static final String NO_DEVICE_LIST =
            "no RDMA device found (ibv_get_device_list returned 0 devices); use --provider softiwarp";

    @Test
    void aMissingLibibverbsIsNamedBySonameWithThePackageToInstallAndTheWayOut() {
        ProviderAvailability availability =
                IbverbsAvailability.probe("libibverbs-nvmf4j-absent.so.1", IbverbsAvailability.CM_SONAME);
        assertFalse(availability.present());
        assertEquals("libibverbs-nvmf4j-absent.so.1 not found: install rdma-core (Debian/Ubuntu: libibverbs1 and"
                + " librdmacm1); use --provider softiwarp", availability.reason());
    }

    @Test
    void aMissingLibrdmacmIsNamedToo() {
        assumeLibrary(IbverbsAvailability.VERBS_SONAME);
        ProviderAvailability availability =
                IbverbsAvailability.probe(IbverbsAvailability.VERBS_SONAME, "librdmacm-nvmf4j-absent.so.1");
        assertFalse(availability.present());
        assertEquals("librdmacm-nvmf4j-absent.so.1 not found: install rdma-core (Debian/Ubuntu: librdmacm1);"
                + " use --provider softiwarp", availability.reason());
    }

    @Test
    void theProviderIsFoundByServiceLoaderUnderItsName() {
        assertTrue(RdmaProviders.all().stream().anyMatch(p -> p.name().equals("ibverbs")
                && p instanceof IbverbsProvider), RdmaProviders.all()::toString);
    }

    @Test
    void withoutAUserSpaceDeviceTheLibrariesAreNotEvenLookedFor(@TempDir Path dir) throws Exception {
        Path empty = Files.createDirectory(dir.resolve("infiniband_verbs"));
        IbverbsProvider provider = new IbverbsProvider(new IbverbsConfig(20_000, Duration.ofSeconds(10), null, empty));
        assertEquals("no RDMA device found (the kernel offers none to user space: no uverbs entry in " + empty
                + "; a NIC needs its driver and ib_uverbs loaded); use --provider softiwarp",
                provider.availability().reason());
        assertOneSentenceWithTheWayOut(provider.availability().reason());
        assertFalse(IbverbsAvailability.hasUserSpaceDevice(dir.resolve("absent")));
        Files.createDirectory(empty.resolve("uverbs0"));
        assertTrue(IbverbsAvailability.hasUserSpaceDevice(empty), "a device: the libraries are asked next");
    }

    @Test
    void onThisMachineTheReasonMatchesWhatIsInstalledAndPresent() throws Exception {
        ProviderAvailability availability = new IbverbsProvider().availability();
        if (!IbverbsAvailability.hasUserSpaceDevice(Path.of("/sys/class/infiniband_verbs"))) {
            assertEquals(IbverbsAvailability.noUserSpaceDevice(Path.of("/sys/class/infiniband_verbs")),
                    availability.reason());
        } else if (!loadable(IbverbsAvailability.VERBS_SONAME)) {
            assertEquals("libibverbs.so.1 not found: install rdma-core (Debian/Ubuntu: libibverbs1 and librdmacm1);"
                    + " use --provider softiwarp", availability.reason());
        } else if (!loadable(IbverbsAvailability.CM_SONAME)) {
            assertTrue(availability.reason().startsWith("librdmacm.so.1 not found"), availability.reason());
        } else if (countEntries(Path.of("/sys/class/infiniband")) == 0) {
            assertEquals(NO_DEVICE_LIST, availability.reason());
        } else {
            assertTrue(availability.present(), availability.reason());
        }
    }

    @Test
    void withoutADeviceByNameFailsWithOneSentenceThatNamesSoftiwarp() {
        RdmaProvider provider = new IbverbsProvider();
        assumeFalse(provider.availability().present(), "this machine has an RDMA device");
        ProviderUnavailableException e =
                assertThrows(ProviderUnavailableException.class, () -> RdmaProviders.byName("ibverbs"));
        assertEquals(VerbsErrorCode.NO_DEVICE, e.code());
        assertTrue(e.getMessage().contains("'ibverbs'"), e.getMessage());
        assertTrue(e.getMessage().endsWith(provider.availability().reason()), e.getMessage());
        assertOneSentenceWithTheWayOut(e.getMessage());
    }

    @Test
    void withoutADeviceOpenDeviceFailsWithTheSameSentenceAndListsNoDevices() {
        RdmaProvider provider = new IbverbsProvider();
        assumeFalse(provider.availability().present(), "this machine has an RDMA device");
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class,
                () -> provider.openDevice(null));
        assertEquals("ibverbs provider unavailable: " + provider.availability().reason(), e.getMessage());
        assertOneSentenceWithTheWayOut(e.getMessage());
        assertTrue(provider.deviceNames().isEmpty());
    }

    @Test
    void autoFallsBackToSoftiwarpWhenIbverbsIsAbsent() throws Exception {
        assumeFalse(new IbverbsProvider().availability().present(), "this machine has an RDMA device");
        assertEquals("softiwarp", RdmaProviders.auto().name());
    }

    private static void assertOneSentenceWithTheWayOut(String message) {
        assertTrue(message.endsWith("use --provider softiwarp"), message);
        assertFalse(message.contains("\n"), message);
        assertFalse(message.contains("Exception"), message);
    }

    private static void assumeLibrary(String soname) {
        org.junit.jupiter.api.Assumptions.assumeTrue(loadable(soname), soname + " is not installed here");
    }

    @SuppressWarnings("restricted") // FFM: opens a C library; the module is granted native access
    private static boolean loadable(String soname) {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(soname, arena);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static long countEntries(Path directory) throws Exception {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.count();
        }
    }
}
