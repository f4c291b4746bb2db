import Testing
import OverlandJSON

@Suite struct JSONValidatorTests {
    /// Real documents of the kinds this project reads: gpsd reports, stored Features, replies.
    static let corpus: [String] = [
        #"{"class":"VERSION","release":"3.25","rev":"3.25","proto_major":3,"proto_minor":15}"#,
        #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-01T12:00:01.000Z","ept":0.005,"lat":45.490975000,"lon":-77.696315000,"altHAE":112.400,"altMSL":146.100,"alt":146.100,"epx":2.116,"epy":2.863,"epv":5.520,"track":271.3000,"magtrack":258.1000,"magvar":-13.2,"speed":4.250,"climb":-0.100,"eps":5.73,"epc":11.04}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","xdop":0.71,"ydop":0.96,"vdop":1.08,"tdop":1.10,"hdop":1.20,"gdop":2.01,"pdop":1.62,"nSat":12,"uSat":8,"satellites":[{"PRN":2,"el":38.0,"az":279.0,"ss":31.0,"used":true,"gnssid":0,"svid":2},{"PRN":5,"el":-1.0,"az":0.0,"ss":0.0,"used":false,"gnssid":0,"svid":5}]}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","activated":"2024-05-01T11:59:58.123Z","flags":1,"native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00,"mincycle":0.25}]}"#,
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.696315,45.490975]},"properties":{"timestamp":"2015-10-01T15:00:00Z","altitude":12,"speed":4.25,"course":271,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":0.5,"course_accuracy":4,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"café \"net\"\\","device_id":"van"}}"#,
        #"{"result":"ok","geocode":{"full_name":"Main St, Ottawa"},"set":{"send_interval":"5m","main":{"batch_size":500,"visit_tracking":false}}}"#,
        #"{"error":"invalid token \u00e9\ud83d\ude00","result":"error","n":[0,-0,1e10,-2.5E-3,null,true,false,"",{},[]]}"#,
        " {\"a\" :\n[ 1 ,\t2 ] } \r\n",
        #"{"deep":[[[[{"x":[[[{}]]]}]]]]}"#,
    ]

    @Test(arguments: corpus)
    func acceptsCorpus(document: String) throws {
        let bytes = Array(document.utf8)
        #expect(JSONValidator.isValidObject(bytes))
        #expect(bytes.withUnsafeBytes { JSONValidator.isValidObject($0) })
        #expect(try JSONParser.parse(bytes).object != nil)
    }

    static let rejected: [(String, JSONError.Reason, Int)] = [
        ("[]", .notAnObject, 0),
        ("\"x\"", .notAnObject, 0),
        ("1", .notAnObject, 0),
        ("", .unexpectedEnd, 0),
        (" ", .unexpectedEnd, 1),
        ("{", .unexpectedEnd, 1),
        ("{}x", .trailingData, 2),
        ("{}\n{}", .trailingData, 3),
        ("{\"a\":01}", .invalidNumber, 5),
        ("{\"a\":NaN}", .unexpectedByte(0x4E), 5),
        ("{\"a\":\"\t\"}", .controlCharacter(0x09), 6),
        ("{\"a\":[1,]}", .unexpectedByte(0x5D), 8),
        ("{\"a\":[1}", .unexpectedByte(0x7D), 7),
        ("{\"a\":{]}", .unexpectedByte(0x5D), 6),
        ("{\"\\udc00\":1}", .unpairedSurrogate, 2),
    ]

    @Test(arguments: rejected)
    func rejects(document: String, reason: JSONError.Reason, offset: Int) {
        let bytes = Array(document.utf8)
        #expect(!JSONValidator.isValidObject(bytes))
        let error = bytes.withUnsafeBytes { buffer -> JSONError? in
            do throws(JSONError) {
                try JSONValidator.checkObject(buffer)
                return nil
            } catch {
                return error
            }
        }
        #expect(error == JSONError(reason, at: offset))
    }

    @Test func depth() {
        let nested = { (depth: Int) in
            Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
        }
        #expect(JSONValidator.isValidObject(nested(64)))
        #expect(!JSONValidator.isValidObject(nested(65)))
        #expect(JSONValidator.isValidObject(nested(65), maxDepth: 65))
        #expect(!JSONValidator.isValidObject(nested(1), maxDepth: 0))
        let bomb = Array(("{\"a\":" + String(repeating: "[", count: 100_000)).utf8)
        #expect(!JSONValidator.isValidObject(bomb))
        #expect(!JSONValidator.isValidObject(bomb, maxDepth: 1_000_000))
    }

    @Test func hugeNumberIsTheOneDocumentedDifference() {
        let document = Array(#"{"a":1e400}"#.utf8)
        #expect(JSONValidator.isValidObject(document))
        #expect(throws: JSONError(.numberOutOfRange, at: 5)) { try JSONParser.parse(document) }
    }

    /// Mutates real documents a few thousand times (fixed seed): neither the parser nor
    /// the validator may crash, and they must agree on what is a valid object.
    @Test func mutationFuzzAgreement() {
        var random = SplitMix64(seed: 0x0E71_A2D0)
        let interesting: [UInt8] = Array(#"{}[]",:\/0123456789-+.eEtrufalsn "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xFF]
        var accepted = 0
        var rejected = 0
        for iteration in 0..<6_000 {
            var bytes = Array(Self.corpus[Int(random.next() % UInt64(Self.corpus.count))].utf8)
            let mutations = 1 + Int(random.next() % 3)
            for _ in 0..<mutations where !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 6 {
                case 0: bytes[position] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 1: bytes[position] ^= UInt8(1 << (random.next() % 8))
                case 2: bytes.remove(at: position)
                case 3: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: position)
                case 4: bytes.removeSubrange(position...)
                default:
                    let end = min(bytes.count, position + 1 + Int(random.next() % 16))
                    bytes.insert(contentsOf: bytes[position..<end], at: position)
                }
            }
            let parsed: Result<JSONValue, JSONError>
            do {
                parsed = .success(try JSONParser.parse(bytes))
            } catch {
                parsed = .failure(error)
            }
            let valid = JSONValidator.isValidObject(bytes)
            switch parsed {
            case .success(let value):
                #expect(valid == (value.object != nil), "iteration \(iteration): \(bytes)")
                // What parses must survive a write and a re-parse unchanged.
                var writer = JSONWriter()
                writer.appendValue(value)
                #expect((try? JSONParser.parse(writer.bytes)) == value, "iteration \(iteration)")
            case .failure(let error):
                #expect(!valid || error.reason == .numberOutOfRange, "iteration \(iteration): \(error) \(bytes)")
            }
            if valid { accepted += 1 } else { rejected += 1 }
        }
        // The mutations must exercise both outcomes to mean anything.
        #expect(accepted > 300 && rejected > 3_000)
    }

    @Test func randomBytesNeverCrash() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            let count = Int(random.next() % 64)
            var bytes = [UInt8(ascii: "{")]
            for _ in 0..<count { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
            let valid = JSONValidator.isValidObject(bytes)
            let parsed = try? JSONParser.parse(bytes)
            #expect(valid == (parsed?.object != nil))
        }
    }
}
