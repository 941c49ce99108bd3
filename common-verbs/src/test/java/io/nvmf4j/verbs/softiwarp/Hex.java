package io.nvmf4j.verbs.softiwarp;

import java.util.HexFormat;

/** Hex vectors written as in captures: spaces ignored. */
final class Hex {
    private Hex() {
    }

    static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", "").replace("\n", ""));
    }

    static String of(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
