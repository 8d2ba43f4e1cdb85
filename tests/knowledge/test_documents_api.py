"""Documents by API: JSON or a file in, chunked and indexed; listed; deleted with their index."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Chunk, Document
from search.models import SearchDoc, SearchScope
from tests.conftest import ApiClient
from tests.knowledge.files import make_docx, make_pdf

SYLLABUS = "数据结构课程大纲。第一章线性表，第二章栈和队列，第三章二叉树的遍历与线索化，第四章图的最短路径。" * 30


def upload(client, agent, filename, data, key="", title=None, content_type="application/octet-stream"):
    body = {"file": SimpleUploadedFile(filename, data, content_type=content_type)}
    if title is not None:
        body["title"] = title
    headers = {"HTTP_X_API_KEY": key} if key else {}
    return client.post(f"/api/agents/{agent.pk}/documents", body, **headers)


def test_a_json_document_is_stored_chunked_and_indexed(api, agent, settings):
    settings.KB_CHUNK_TOKENS = 120
    response = api.post(f"/api/agents/{agent.pk}/documents", {"title": "数据结构大纲", "text": SYLLABUS})
    assert response.status_code == 201, response.content
    body = response.json()
    document = Document.objects.get(pk=body["id"])
    assert (body["title"], body["source"], body["agent_id"]) == ("数据结构大纲", "text", agent.pk)
    assert body["chunk_count"] == document.chunks.count() > 1
    assert all(chunk.tokens <= 120 for chunk in document.chunks.all())
    assert SearchDoc.objects.filter(ref__in=document.chunks.values("pk")).count() == body["chunk_count"]


@pytest.mark.parametrize(
    ("filename", "data", "expected"),
    [
        ("大纲.txt", SYLLABUS.encode(), "第三章二叉树的遍历"),
        ("gbk.txt", "第三章二叉树的遍历".encode("gb18030"), "第三章二叉树的遍历"),
        ("notes.md", b"# Trees\n\n- binary search trees keep keys in order\n", "binary search trees"),
        ("notes.pdf", make_pdf(["Binary search trees keep keys in order."]), "Binary search trees"),
        ("教案.docx", make_docx(["二叉树的遍历教案"], [["题型", "分值"], ["简答", "10"]]), "简答 | 10"),
    ],
)
def test_text_markdown_pdf_and_word_files_are_read(client, api_key, agent, filename, data, expected):
    response = upload(client, agent, filename, data, key=api_key)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["source"] == f"file:{filename}"
    assert body["title"] == filename.rsplit(".", 1)[0]
    assert expected in Document.objects.get(pk=body["id"]).text


def test_an_upload_may_name_its_title(client, api_key, agent):
    body = upload(client, agent, "a.txt", b"binary trees", key=api_key, title="Trees").json()
    assert body["title"] == "Trees"


@pytest.mark.parametrize(
    ("filename", "data", "status", "code"),
    [
        ("slides.pptx", b"PK\x03\x04", 415, "unsupported_file_type"),
        ("noext", b"hello", 415, "unsupported_file_type"),
        ("broken.pdf", b"%PDF-1.4 not really", 422, "unreadable_file"),
        ("broken.docx", b"not a zip", 422, "unreadable_file"),
        ("empty.txt", b"   \n", 422, "empty_document"),
        ("binary.txt", bytes(range(128, 256)) * 4, 422, "unreadable_file"),
    ],
)
def test_files_it_cannot_use_are_refused_with_a_stable_code(client, api_key, agent, filename, data, status, code):
    response = upload(client, agent, filename, data, key=api_key)
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    assert not Document.objects.exists()


def test_a_file_over_the_size_limit_is_refused(client, api_key, agent, settings):
    settings.KB_MAX_UPLOAD_BYTES = 100
    response = upload(client, agent, "big.txt", b"x" * 101, key=api_key)
    assert (response.status_code, response.json()["code"]) == (413, "file_too_large")


def test_a_multipart_request_without_a_file_is_refused(client, api_key, agent):
    response = client.post(f"/api/agents/{agent.pk}/documents", {"title": "x"}, HTTP_X_API_KEY=api_key)
    assert (response.status_code, response.json()["code"]) == (422, "file_required")


def test_bad_json_bodies_are_refused_with_stable_codes(api, agent):
    url = f"/api/agents/{agent.pk}/documents"
    assert api.post(url, raw="{not json").json()["code"] == "invalid_json"
    assert api.post(url, {"title": "x"}).json()["code"] == "validation_error"
    assert api.post(url, {"title": "x", "text": "  "}).json()["code"] == "empty_document"


def test_documents_are_listed_newest_first_with_paging(api, agent, en_agent):
    for title in ("一", "二", "三"):
        api.post(f"/api/agents/{agent.pk}/documents", {"title": title, "text": f"第{title}份资料"})
    api.post(f"/api/agents/{en_agent.pk}/documents", {"title": "other agent", "text": "notes"})
    body = api.get(f"/api/agents/{agent.pk}/documents").json()
    assert body["count"] == 3
    assert [d["title"] for d in body["items"]] == ["三", "二", "一"]
    page = api.get(f"/api/agents/{agent.pk}/documents", limit=1, offset=1).json()
    assert [d["title"] for d in page["items"]] == ["二"]


def test_deleting_a_document_removes_its_chunks_and_index_entries(api, agent):
    keep = api.post(f"/api/agents/{agent.pk}/documents", {"title": "保留", "text": "图的最短路径"}).json()
    gone = api.post(f"/api/agents/{agent.pk}/documents", {"title": "删除", "text": SYLLABUS}).json()
    response = api.delete(f"/api/documents/{gone['id']}")
    assert response.status_code == 204
    assert not Document.objects.filter(pk=gone["id"]).exists()
    assert not Chunk.objects.filter(document_id=gone["id"]).exists()
    assert list(SearchDoc.objects.values_list("ref", flat=True)) == list(
        Chunk.objects.filter(document_id=keep["id"]).values_list("pk", flat=True)
    )
    scope = SearchScope.objects.get()
    assert scope.doc_count == 1
    assert api.delete(f"/api/documents/{gone['id']}").status_code == 404


# -- who may do what --------------------------------------------------------------------------


def test_another_school_can_neither_upload_list_nor_delete(api, agent, other_key):
    document = api.post(f"/api/agents/{agent.pk}/documents", {"title": "t", "text": "x"}).json()
    assert api.post(f"/api/agents/{agent.pk}/documents", {"title": "t", "text": "x"}, key=other_key).status_code == 404
    assert api.get(f"/api/agents/{agent.pk}/documents", key=other_key).status_code == 404
    response = api.delete(f"/api/documents/{document['id']}", key=other_key)
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert Document.objects.filter(pk=document["id"]).exists()


def test_another_schools_teacher_is_refused_too(client, agent, other_teacher, api):
    document = api.post(f"/api/agents/{agent.pk}/documents", {"title": "t", "text": "x"}).json()
    client.force_login(other_teacher)
    outsider = ApiClient(client, key="")
    assert outsider.get(f"/api/agents/{agent.pk}/documents").status_code == 404
    assert outsider.post(f"/api/agents/{agent.pk}/documents", {"title": "t", "text": "x"}).status_code == 404
    assert outsider.delete(f"/api/documents/{document['id']}").status_code == 404


def test_the_schools_teachers_share_an_agents_documents(client, agent, teacher, second_teacher):
    client.force_login(teacher)
    created = ApiClient(client, key="").post(f"/api/agents/{agent.pk}/documents", {"title": "大纲", "text": "x"})
    assert created.json()["created_by"] == "wang"
    client.force_login(second_teacher)
    listed = ApiClient(client, key="").get(f"/api/agents/{agent.pk}/documents").json()
    assert [d["id"] for d in listed["items"]] == [created.json()["id"]]


def test_a_teacher_cannot_delete_another_teachers_document(client, agent, teacher, second_teacher):
    client.force_login(teacher)
    document = ApiClient(client, key="").post(f"/api/agents/{agent.pk}/documents", {"title": "t", "text": "x"}).json()
    client.force_login(second_teacher)
    response = ApiClient(client, key="").delete(f"/api/documents/{document['id']}")
    assert (response.status_code, response.json()["code"]) == (403, "not_document_owner")
    client.force_login(teacher)
    assert ApiClient(client, key="").delete(f"/api/documents/{document['id']}").status_code == 204


def test_a_school_admin_may_delete_any_of_the_schools_documents(client, agent, teacher, school_admin):
    client.force_login(teacher)
    document = ApiClient(client, key="").post(f"/api/agents/{agent.pk}/documents", {"title": "t", "text": "x"}).json()
    client.force_login(school_admin)
    assert ApiClient(client, key="").delete(f"/api/documents/{document['id']}").status_code == 204


def test_requests_without_credentials_are_refused(client, agent):
    response = ApiClient(client, key="").get(f"/api/agents/{agent.pk}/documents")
    assert (response.status_code, response.json()["code"]) == (401, "unauthorized")


def _docx_with(document_xml: bytes) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(make_docx(["x"]))) as source, zipfile.ZipFile(buffer, "w") as target:
        for item in source.infolist():
            data = document_xml if item.filename == "word/document.xml" else source.read(item.filename)
            target.writestr(item, data)
    return buffer.getvalue()


@pytest.mark.parametrize("data", [
    _docx_with(b"<w:document xmlns:w='http://schemas.openxmlformats.org/wordprocessingml/2006/main'><broken"),
    _docx_with(b"<w:document xmlns:w='http://schemas.openxmlformats.org/wordprocessingml/2006/main'/>"),
])
def test_a_broken_word_file_is_unreadable_not_a_500(client, api_key, agent, data):
    response = upload(client, agent, "bad.docx", data, key=api_key)
    assert response.status_code == 422
    assert response.json()["code"] == "unreadable_file"
    assert not Document.objects.exists()


def test_a_multipart_body_without_a_boundary_is_a_400(client, api_key, agent):
    response = client.post(f"/api/agents/{agent.pk}/documents", data=b"--x\r\n", content_type="multipart/form-data",
                           HTTP_X_API_KEY=api_key)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_multipart"


@pytest.mark.parametrize("params", [{"offset": 10**20}, {"offset": -1}, {"limit": 0}, {"limit": 10**6}])
def test_paging_out_of_range_is_a_422(api, agent, params):
    response = api.get(f"/api/agents/{agent.pk}/documents", **params)
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"


def test_a_typed_document_with_a_lone_surrogate_is_refused_like_any_text(api, agent):
    import json

    response = api.post(f"/api/agents/{agent.pk}/documents", raw=json.dumps({"title": "t", "text": "二叉树 \ud800 遍历"}))
    assert (response.status_code, response.json()["code"]) == (422, "invalid_text"), response.content
    assert not Document.objects.exists()
