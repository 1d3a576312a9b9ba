//! Role tables: Android classes (framework, AppCompat, Material, Compose/Flutter/React Native
//! plain views), iOS `XCUIElementType*` / legacy `UIA*` types, and AX roles (AXe, idb).

use super::model::Role;

/// Role of an Android class. The simple name (after the last `.` or `$`) decides, so
/// `androidx.appcompat.widget.AppCompatButton` and `com.google.android.material.button.MaterialButton`
/// are buttons. Plain `android.view.View` (Compose, Flutter, React Native) gets a role from its
/// flags: clickable → button, content-desc → text, else group.
pub fn android_role(class: &str, clickable: bool, has_desc: bool, checkable: bool) -> Role {
    let simple = class.rsplit(['.', '$']).next().unwrap_or(class);
    let lower = simple.to_ascii_lowercase();
    let s = lower.as_str();
    let exact = match s {
        "view" | "viewgroup" | "composeview" | "androidcomposeview" => {
            return if clickable && checkable {
                Role::Checkbox
            } else if clickable {
                Role::Button
            } else if has_desc {
                Role::Text
            } else {
                Role::Group
            };
        }
        "webview" | "xwalkview" => Some(Role::Webview),
        "imagebutton" | "appcompatimagebutton" | "floatingactionbutton" => Some(Role::Button),
        "togglebutton" => Some(Role::Switch),
        "switch" | "switchcompat" | "switchmaterial" | "materialswitch" => Some(Role::Switch),
        "checkbox"
        | "appcompatcheckbox"
        | "materialcheckbox"
        | "checkedtextview"
        | "appcompatcheckedtextview" => Some(Role::Checkbox),
        "radiobutton" | "appcompatradiobutton" | "materialradiobutton" => Some(Role::Radio),
        "seekbar" | "appcompatseekbar" | "ratingbar" | "slider" | "rangeslider" => {
            Some(Role::Slider)
        }
        "progressbar"
        | "contentloadingprogressbar"
        | "linearprogressindicator"
        | "circularprogressindicator" => Some(Role::Progress),
        "spinner" | "appcompatspinner" | "numberpicker" | "datepicker" | "timepicker" => {
            Some(Role::Picker)
        }
        "tablayout"
        | "tabwidget"
        | "tabhost"
        | "bottomnavigationview"
        | "navigationbarview"
        | "navigationrailview" => Some(Role::Tablist),
        "tabitem" | "tabview" | "bottomnavigationitemview" | "navigationbaritemview" => {
            Some(Role::Tab)
        }
        "toolbar" | "actionbar" | "materialtoolbar" | "actionbarcontainer" | "actionmenuview" => {
            Some(Role::Toolbar)
        }
        "chip" => Some(Role::Button),
        _ => None,
    };
    if let Some(r) = exact {
        return r;
    }
    if s.contains("edittext") || s.contains("autocompletetextview") || s == "searchview" {
        Role::Textbox
    } else if s.ends_with("button") {
        Role::Button
    } else if s.contains("imageview") || s == "image" {
        Role::Image
    } else if s.ends_with("textview") || s == "textview" {
        Role::Text
    } else if s.contains("recyclerview")
        || s.contains("listview")
        || s.contains("gridview")
        || s.contains("scrollview")
        || s.contains("viewpager")
        || s == "horizontalscrollview"
    {
        Role::List
    } else if s.contains("layout") || s.ends_with("group") || s.ends_with("container") {
        Role::Group
    } else if s == "tab" {
        Role::Tab
    } else {
        Role::Other
    }
}

/// Role of an iOS element type (`XCUIElementTypeButton`, `Button`, legacy `UIAButton`).
pub fn ios_type_role(ty: &str) -> Role {
    let t = ty
        .strip_prefix("XCUIElementType")
        .or_else(|| ty.strip_prefix("UIA"))
        .unwrap_or(ty);
    match t {
        "Button" | "MenuButton" | "PopUpButton" | "DisclosureTriangle" | "ToolbarButton"
        | "Icon" | "IncrementArrow" | "DecrementArrow" | "ColorWell" => Role::Button,
        "StaticText" => Role::Text,
        "TextField" | "SecureTextField" | "SearchField" | "TextView" | "TextArea" => Role::Textbox,
        "Image" => Role::Image,
        "Switch" | "Toggle" => Role::Switch,
        "CheckBox" => Role::Checkbox,
        "RadioButton" => Role::Radio,
        "Slider" | "Stepper" | "Adjustable" => Role::Slider,
        "ProgressIndicator" | "ActivityIndicator" | "LevelIndicator" | "RatingIndicator" => {
            Role::Progress
        }
        "Picker" | "PickerWheel" | "DatePicker" | "SegmentedControl" | "ComboBox" => Role::Picker,
        "Table" | "CollectionView" | "ScrollView" | "Outline" | "Browser" | "Grid"
        | "TableView" => Role::List,
        "Cell" | "TableCell" | "TableRow" | "OutlineRow" | "CollectionViewCell" => Role::Cell,
        "Tab" => Role::Tab,
        "TabBar" | "TabGroup" | "SegmentedControlGroup" => Role::Tablist,
        "Link" => Role::Link,
        "Heading" => Role::Heading,
        "Menu" | "MenuBar" => Role::Menu,
        "MenuItem" | "MenuBarItem" => Role::Menuitem,
        "Toolbar" | "NavigationBar" => Role::Toolbar,
        "Alert" | "Sheet" | "Dialog" | "ActionSheet" => Role::Alert,
        "Keyboard" => Role::Keyboard,
        "Key" => Role::Key,
        "WebView" => Role::Webview,
        "Window" => Role::Window,
        "Application" => Role::Application,
        "StatusBar" => Role::Statusbar,
        "Group" | "Other" | "Any" | "Element" | "GenericElement" | "LayoutArea" | "LayoutItem"
        | "ScrollBar" | "Splitter" | "SplitGroup" | "Drawer" | "Matte" => Role::Group,
        _ => Role::Other,
    }
}

/// Role of an AX role/subrole pair as AXe and idb report them (`AXButton`, subrole
/// `AXSearchField`), falling back to their `type` field.
pub fn ax_role(role: Option<&str>, subrole: Option<&str>, ty: Option<&str>) -> Role {
    if let Some(sub) = subrole {
        match sub {
            "AXSearchField" | "AXSecureTextField" => return Role::Textbox,
            "AXSwitch" | "AXToggle" => return Role::Switch,
            "AXTabButton" => return Role::Tab,
            _ => {}
        }
    }
    let r = role.map(|r| r.strip_prefix("AX").unwrap_or(r));
    let from_role = match r {
        Some("Button") | Some("PopUpButton") | Some("MenuButton") => Some(Role::Button),
        Some("StaticText") => Some(Role::Text),
        Some("TextField") | Some("TextArea") | Some("SearchField") | Some("SecureTextField") => {
            Some(Role::Textbox)
        }
        Some("Image") => Some(Role::Image),
        Some("CheckBox") => Some(Role::Checkbox),
        Some("RadioButton") => Some(Role::Radio),
        Some("Slider") | Some("Adjustable") | Some("Stepper") => Some(Role::Slider),
        Some("ProgressIndicator") | Some("BusyIndicator") => Some(Role::Progress),
        Some("Link") => Some(Role::Link),
        Some("Heading") => Some(Role::Heading),
        Some("Cell") | Some("Row") => Some(Role::Cell),
        Some("Table")
        | Some("List")
        | Some("Outline")
        | Some("ScrollArea")
        | Some("CollectionView") => Some(Role::List),
        Some("TabGroup") | Some("TabBar") => Some(Role::Tablist),
        Some("Toolbar") => Some(Role::Toolbar),
        Some("Keyboard") => Some(Role::Keyboard),
        Some("Key") => Some(Role::Key),
        Some("WebArea") => Some(Role::Webview),
        Some("Window") => Some(Role::Window),
        Some("Application") => Some(Role::Application),
        Some("Switch") | Some("Toggle") => Some(Role::Switch),
        Some("Sheet") | Some("Dialog") | Some("Alert") => Some(Role::Alert),
        Some("Group") | Some("GenericElement") | Some("Unknown") => None,
        _ => None,
    };
    if let Some(r) = from_role {
        return r;
    }
    match ty {
        Some(t) => ios_type_role(t),
        None => Role::Group,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn android_framework_appcompat_material() {
        assert_eq!(
            android_role("android.widget.Button", true, false, false),
            Role::Button
        );
        assert_eq!(
            android_role(
                "androidx.appcompat.widget.AppCompatButton",
                true,
                false,
                false
            ),
            Role::Button
        );
        assert_eq!(
            android_role(
                "com.google.android.material.button.MaterialButton",
                true,
                false,
                false
            ),
            Role::Button
        );
        assert_eq!(
            android_role("android.widget.EditText", true, false, false),
            Role::Textbox
        );
        assert_eq!(
            android_role(
                "androidx.appcompat.widget.AppCompatEditText",
                true,
                false,
                false
            ),
            Role::Textbox
        );
        assert_eq!(
            android_role(
                "androidx.recyclerview.widget.RecyclerView",
                false,
                false,
                false
            ),
            Role::List
        );
        assert_eq!(
            android_role("android.widget.TextView", false, false, false),
            Role::Text
        );
        assert_eq!(
            android_role(
                "com.google.android.material.switchmaterial.SwitchMaterial",
                true,
                false,
                true
            ),
            Role::Switch
        );
        assert_eq!(
            android_role("android.widget.FrameLayout", false, false, false),
            Role::Group
        );
    }

    #[test]
    fn android_plain_views_from_flags() {
        assert_eq!(
            android_role("android.view.View", true, true, false),
            Role::Button
        );
        assert_eq!(
            android_role("android.view.View", false, true, false),
            Role::Text
        );
        assert_eq!(
            android_role("android.view.View", false, false, false),
            Role::Group
        );
        assert_eq!(
            android_role("android.view.ViewGroup", true, true, false),
            Role::Button
        );
    }

    #[test]
    fn ios_types_and_ax_roles() {
        assert_eq!(ios_type_role("XCUIElementTypeButton"), Role::Button);
        assert_eq!(ios_type_role("XCUIElementTypeSearchField"), Role::Textbox);
        assert_eq!(ios_type_role("XCUIElementTypeCell"), Role::Cell);
        assert_eq!(ios_type_role("XCUIElementTypeCollectionView"), Role::List);
        assert_eq!(ios_type_role("UIAStatusBar"), Role::Statusbar);
        assert_eq!(ios_type_role("XCUIElementTypeAlert"), Role::Alert);
        assert_eq!(
            ax_role(Some("AXGenericElement"), Some("AXSearchField"), None),
            Role::Textbox
        );
        assert_eq!(
            ax_role(Some("AXButton"), None, Some("Button")),
            Role::Button
        );
        assert_eq!(ax_role(Some("AXGroup"), None, Some("Group")), Role::Group);
        assert_eq!(ax_role(None, None, Some("Heading")), Role::Heading);
    }
}
