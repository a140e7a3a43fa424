import Foundation
import Testing

@testable import TesseraWire

@Suite struct KeyFileTests {
    @Test func generatedPairsAreValidAndDistinct() throws {
        let a = try CurveKeyPair.generate()
        let b = try CurveKeyPair.generate()
        #expect(a != b)
        for key in [a.publicKey, a.secretKey, b.publicKey, b.secretKey] {
            #expect(key.utf8.count == 40)
            #expect(CurveKeyPair.isValidKey(key))
        }
        // A public key that is not the secret key's is refused.
        #expect(throws: WireError.self) { try CurveKeyPair(publicKey: b.publicKey, secretKey: a.secretKey) }
    }

    @Test func saveThenLoadGivesTheSamePairWithAPrivateSecretFile() throws {
        let directory = try scratchDirectory()
        let pair = try CurveKeyPair.generate()
        let (secretFile, publicFile) = try pair.save(prefix: directory + "/worker-1")
        #expect(secretFile == directory + "/worker-1.key")
        #expect(publicFile == directory + "/worker-1.pub")

        #expect(try CurveKeyPair.load(secretFile: secretFile) == pair)
        let attributes = try FileManager.default.attributesOfItem(atPath: secretFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let publicText = try String(contentsOfFile: publicFile, encoding: .utf8)
        #expect(publicText.contains(pair.publicKey))
        #expect(!publicText.contains(pair.secretKey))
        #expect(try CurveKeyPair.loadPublicKeys(publicFile) == [pair.publicKey])

        // Saving again must not overwrite the secret.
        do {
            try CurveKeyPair.generate().save(prefix: directory + "/worker-1")
            Issue.record("overwrote an existing key file")
        } catch {
            #expect(error.kind == .keys && error.message.contains("already exists"))
        }
        #expect(try CurveKeyPair.load(secretFile: secretFile) == pair)
    }

    @Test func aDirectoryAllowListReadsEveryPubFileAndIgnoresCommentsAndBlankLines() throws {
        let directory = try scratchDirectory()
        let pairs = try (0..<3).map { _ in try CurveKeyPair.generate() }
        for (i, pair) in pairs.enumerated() { try pair.save(prefix: "\(directory)/w\(i)") }
        let extra = try CurveKeyPair.generate()
        try "# two keys\n\n  \(extra.publicKey)  \r\n#\(pairs[0].publicKey)\n".write(
            toFile: directory + "/more.pub", atomically: true, encoding: .utf8)
        try "not a key\n".write(toFile: directory + "/notes.txt", atomically: true, encoding: .utf8)

        let keys = try CurveKeyPair.loadPublicKeys(directory)
        #expect(keys == Set(pairs.map(\.publicKey) + [extra.publicKey]))
    }

    @Test(arguments: [
        ("# header\nshortkey\n", 2),
        ("\n\n\(String(repeating: "é", count: 40))\n", 3),
        ("\(String(repeating: "A", count: 41))\n", 1),
    ])
    func aMalformedPublicKeyNamesFileAndLine(text: String, line: Int) throws {
        let file = try scratchDirectory() + "/allowed.pub"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try CurveKeyPair.loadPublicKeys(file)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.kind == .keys)
            #expect(error.message.contains("\(file):\(line):"), "\(error.message)")
        }
    }

    /// As sshd's StrictModes: an allow-list folder or a public key file anyone may write is refused, naming it,
    /// its mode and the fix (anyone on the machine could add a worker, or swap the coordinator's key).
    @Test func anAllowListAnyoneMayWriteIsRefused() throws {
        let directory = try scratchDirectory()
        let pair = try CurveKeyPair.generate()
        try pair.save(prefix: "\(directory)/w0")
        #expect(try CurveKeyPair.loadPublicKeys(directory) == [pair.publicKey])
        func refusal(_ path: String) -> String? {
            do {
                _ = try CurveKeyPair.loadPublicKeys(path)
                return nil
            } catch { return error.message }
        }
        chmod(directory + "/w0.pub", 0o666)
        let file = refusal(directory + "/w0.pub"), inFolder = refusal(directory)
        #expect(file?.contains("w0.pub is writable by anyone (mode 666)") == true, "\(file ?? "accepted")")
        #expect(inFolder?.contains("w0.pub is writable by anyone") == true, "\(inFolder ?? "accepted")")
        chmod(directory + "/w0.pub", 0o644)
        chmod(directory, 0o777)
        defer { chmod(directory, 0o755) }
        let folder = refusal(directory)
        #expect(
            folder?.contains("public key folder \(directory) is writable by anyone (mode 777)") == true
                && folder?.contains("chmod 755") == true, "\(folder ?? "accepted")")
    }

    @Test func missingEmptyAndMalformedFilesAreClearErrors() throws {
        let directory = try scratchDirectory()
        let cases: [(path: String, contents: String?, expected: String)] = [
            (directory + "/absent.pub", nil, "does not exist"),
            (directory + "/empty.pub", "# nobody yet\n", "no public key"),
            (directory + "/half.key", "public-key = \"\(try CurveKeyPair.generate().publicKey)\"\n", "no secret-key"),
            (directory + "/bad.key", "curve\n    public-key = \"xyz\"\n", "bad.key:2"),
        ]
        for (path, contents, expected) in cases {
            if let contents { try contents.write(toFile: path, atomically: true, encoding: .utf8) }
            do {
                if path.hasSuffix(".key") {
                    _ = try CurveKeyPair.load(secretFile: path)
                } else {
                    _ = try CurveKeyPair.loadPublicKeys(path)
                }
                Issue.record("\(path) loaded")
            } catch {
                #expect(error.kind == .keys)
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(throws: WireError.self) { try CurveKeyPair.loadPublicKeys(try scratchDirectory()) }
    }
}
