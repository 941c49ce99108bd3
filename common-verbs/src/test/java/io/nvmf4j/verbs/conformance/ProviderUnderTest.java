package io.nvmf4j.verbs.conformance;

import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * A provider the conformance suite runs against, and the source of the suite's parameters: every provider on
 * the class path whose {@code availability()} says present. Providers that are absent (ibverbs on a machine
 * without libibverbs or a device) are not listed; the reason is printed once so a test report says why.
 *
 * @param provider the provider
 */
public record ProviderUnderTest(RdmaProvider provider) {

    private static volatile boolean reported;

    /** Name shown in test reports. */
    @Override
    public String toString() {
        return provider.name();
    }

    /**
     * Whether connection errors travel as iWARP Terminate messages the provider itself sends and receives
     * (softiwarp). Then the disconnect causes are exact ({@code TERMINATE_SENT} / {@code TERMINATE_RECEIVED});
     * a provider over a kernel device learns only that the queue pair broke.
     */
    boolean seesTerminates() {
        return provider.name().equals("softiwarp");
    }

    /** The {@code @MethodSource} of provider-parameterised tests. */
    public static Stream<ProviderUnderTest> available() {
        List<RdmaProvider> all = RdmaProviders.all();
        if (!reported) {
            reported = true;
            for (RdmaProvider provider : all) {
                if (!provider.availability().present()) {
                    System.err.println("conformance: provider '" + provider.name() + "' not tested: "
                            + provider.availability().reason());
                }
            }
            for (String expected : List.of("softiwarp", "ibverbs")) {
                if (all.stream().noneMatch(p -> p.name().equals(expected))) {
                    System.err.println("conformance: provider '" + expected + "' not tested: it is not on the "
                            + "class path");
                }
            }
        }
        return all.stream().filter(p -> p.availability().present()).map(ProviderUnderTest::new);
    }

    /** Every available provider crossed with the transfer sizes of the suite (1 byte to 16 MiB). */
    public static Stream<Arguments> availableWithTransferSizes() {
        int[] sizes = {1, 7, 4096, 65536, 1 << 20, 16 << 20};
        return available().flatMap(p -> Arrays.stream(sizes).mapToObj(size -> Arguments.of(p, size)));
    }
}
