/// A parsed JSON value.
///
/// Objects are unordered: a document that repeats a key keeps the last value for it
/// (RFC 8259 leaves this to the implementation). Numbers are finite doubles; the parser
/// rejects a number whose magnitude does not fit in a `Double`.
public enum JSONValue: Sendable, Equatable {
    /// The literal `null`.
    case null
    /// The literal `true` or `false`.
    case bool(Bool)
    /// A number, always finite.
    case number(Double)
    /// A string, with escapes decoded.
    case string(String)
    /// An array, in document order.
    case array([JSONValue])
    /// An object; a repeated key keeps its last value.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member named `key` when this is an object that has it, otherwise nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` when this is an array long enough, otherwise nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) {
            return elements[index]
        }
        return nil
    }

    /// The string when this is a string, otherwise nil.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number when this is a number, otherwise nil.
    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number when this is a number with no fraction that fits in an `Int`, otherwise nil.
    public var int: Int? {
        guard case .number(let value) = self else { return nil }
        return exactInteger(value).map { Int($0) }
    }

    /// The Boolean when this is `true` or `false`, otherwise nil.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements when this is an array, otherwise nil.
    public var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members when this is an object, otherwise nil.
    public var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Whether this is the literal `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// `value` as an integer when it has no fraction and fits in an `Int64`.
///
/// Written with a truncating conversion rather than `Int64(exactly:)` or `rounded()`,
/// which call into libm: this module must link without it.
@inline(__always)
func exactInteger(_ value: Double) -> Int64? {
    // 2^63 is exact as a Double; every double in the half-open range converts safely.
    guard value >= -0x1p63 && value < 0x1p63 else { return nil }
    let integer = Int64(value)
    return Double(integer) == value ? integer : nil
}
